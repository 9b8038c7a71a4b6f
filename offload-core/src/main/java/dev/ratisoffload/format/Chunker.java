package dev.ratisoffload.format;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Splits a stream into content-defined chunks with a gear rolling hash. Memory is bounded by twice the
 * policy's maximum chunk size, whatever the stream's length.
 *
 * <p>A chunker keeps its window (the bytes read ahead of the next boundary) for the next stream, so that
 * the files of a publish share one instead of allocating one each: the window is a large object for the
 * garbage collector, and allocating such objects is what starts its concurrent cycles and their pauses.
 * The window grows with the streams, from {@value #FIRST_WINDOW} bytes, so a short file takes a small
 * one. Not thread-safe: one stream at a time.
 */
public final class Chunker {

  /** Receives each chunk in order; the array is the sink's to keep. */
  @FunctionalInterface
  public interface Sink {
    void accept(byte[] chunk) throws IOException;
  }

  /**
   * Receives each chunk in order as the first {@code length} bytes of an array it provides, so that a
   * caller can reuse arrays instead of allocating one per chunk.
   */
  public interface BufferSink {
    /** An array of at least {@code length} bytes for the next chunk; the sink's again once accepted. */
    byte[] buffer(int length) throws IOException;

    void accept(byte[] buffer, int length) throws IOException;
  }

  /** 256 fixed pseudo-random values; changing them would change every boundary (and deduplication). */
  private static final long[] GEAR = new long[256];

  static {
    SplittableRandom random = new SplittableRandom(0x5EED_0FF1_0ADL);
    for (int i = 0; i < GEAR.length; i++) {
      GEAR[i] = random.nextLong();
    }
  }

  static final int FIRST_WINDOW = 64 * 1024;

  private final ChunkingPolicy policy;
  private final long mask;
  private byte[] window = new byte[0];

  public Chunker(ChunkingPolicy policy) {
    this.policy = policy;
    // The high bits of a gear hash depend on the most bytes; test those.
    this.mask = -1L << (64 - Integer.numberOfTrailingZeros(policy.average()));
  }

  /** Reads {@code in} to its end, passing each chunk to {@code sink}. */
  public void split(InputStream in, Sink sink) throws IOException {
    split(in, new BufferSink() {
      @Override
      public byte[] buffer(int length) {
        return new byte[length];
      }

      @Override
      public void accept(byte[] buffer, int length) throws IOException {
        sink.accept(buffer);
      }
    });
  }

  /** Reads {@code in} to its end, copying each chunk into an array the sink provides. */
  public void split(InputStream in, BufferSink sink) throws IOException {
    int filled = 0;
    int start = 0;
    boolean eof = false;
    while (true) {
      // A boundary is found among a whole maximal chunk's bytes, or among the last bytes of the stream.
      while (!eof && filled - start < policy.max()) {
        if (start > 0) { // compact
          System.arraycopy(window, start, window, 0, filled - start);
          filled -= start;
          start = 0;
        }
        if (filled == window.length) {
          window = Arrays.copyOf(window, Math.min(2 * policy.max(), Math.max(FIRST_WINDOW, 2 * window.length)));
        }
        filled += in.readNBytes(window, filled, window.length - filled);
        eof = filled < window.length; // readNBytes reads less only at the end
      }
      if (filled == start) {
        return;
      }
      int length = boundary(window, start, filled - start);
      byte[] chunk = sink.buffer(length);
      System.arraycopy(window, start, chunk, 0, length);
      sink.accept(chunk, length);
      start += length;
    }
  }

  /** The length of the chunk starting at {@code offset} among {@code available} bytes. */
  int boundary(byte[] data, int offset, int available) {
    int limit = Math.min(available, policy.max());
    if (limit <= policy.min()) {
      return limit;
    }
    long hash = 0;
    for (int i = policy.min(); i < limit; i++) {
      hash = (hash << 1) + GEAR[data[offset + i] & 0xff];
      if ((hash & mask) == 0) {
        return i + 1;
      }
    }
    return limit;
  }
}
