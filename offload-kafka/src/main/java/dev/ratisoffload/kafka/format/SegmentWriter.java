package dev.ratisoffload.kafka.format;

import dev.ratisoffload.primitives.Hashes;
import dev.ratisoffload.store.Content;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import org.apache.kafka.common.Uuid;

/**
 * Builds one segment in memory, compressing as records arrive, so its size is known while it grows.
 *
 * <p>Offsets must increase. An offset skipped between two records, or between the last record and
 * {@link #advanceTo}, becomes a hole; adjacent holes are merged so each run is one entry. Call
 * {@link #finish} to get the object, or {@link #discard} to drop it; either frees the writer's own
 * compressor (a shared one is closed by whoever made it).
 */
public final class SegmentWriter {

  static final int RECORD = 1;
  static final int HOLE = 2;
  static final int END = 0;

  private final Uuid topicId;
  private final int partition;
  private final long firstOffset;
  private final String previousSha256;
  private final Codec codec;
  private final BlockSink stored = new BlockSink();
  private final ByteSink scratch = new ByteSink();
  /** Frees its own compressor's native memory; at most once, as the writer is finished or discarded. */
  private final Runnable releaseCompressor;
  /** What the writer holds besides the stored body: its buffers, and its own compressor's state (approximately). */
  private final LongSupplier workingMemory;
  private final CountingOutputStream body;
  private long nextOffset;
  private long pendingHole;
  private long recordCount;
  private long minTimestamp = -1;
  private long maxTimestamp = -1;
  private long previousTimestamp;
  private boolean closed;

  /**
   * @param previousSha256 the SHA-256 of the chain's previous segment, or null if this is the first
   * @param level the compression level, in the codec's own scale (zlib 0-9, zstd 1-22 and below)
   */
  public SegmentWriter(Uuid topicId, int partition, long firstOffset, String previousSha256, Codec codec,
      int level) {
    this(topicId, partition, firstOffset, previousSha256, codec, level, null);
  }

  /** A writer with the codec for writing ({@link Codec#forWriting}) at its fastest level. */
  public SegmentWriter(Uuid topicId, int partition, long firstOffset, String previousSha256) {
    this(topicId, partition, firstOffset, previousSha256, Codec.forWriting(), Codec.forWriting().defaultLevel());
  }

  /**
   * A zstd writer that compresses with a compressor it shares with other writers on the same thread
   * (and does not close).
   */
  SegmentWriter(Uuid topicId, int partition, long firstOffset, String previousSha256,
      ZstdBlockCompressor shared) {
    this(topicId, partition, firstOffset, previousSha256, Codec.ZSTD, 0, Objects.requireNonNull(shared));
  }

  private SegmentWriter(Uuid topicId, int partition, long firstOffset, String previousSha256, Codec codec,
      int level, ZstdBlockCompressor shared) {
    if (partition < 0 || firstOffset < 0) {
      throw new IllegalArgumentException("partition " + partition + ", first offset " + firstOffset);
    }
    this.topicId = topicId;
    this.partition = partition;
    this.firstOffset = firstOffset;
    this.nextOffset = firstOffset;
    this.previousSha256 = previousSha256;
    this.codec = codec;
    OutputStream sink;
    switch (codec) {
      case DEFLATE -> {
        Deflater deflater = new Deflater(level);
        sink = new BufferedOutputStream(new DeflaterOutputStream(stored, deflater, 16 * 1024), 16 * 1024);
        releaseCompressor = deflater::end;
        workingMemory = () -> 300 * 1024; // zlib's window and hash chains, and the two buffers
      }
      case ZSTD -> {
        ZstdBlockCompressor compressor = shared;
        if (compressor == null) {
          codec.requireAvailable("of partition " + partition + " at offset " + firstOffset);
          compressor = new ZstdBlockCompressor(level);
          releaseCompressor = compressor::close;
        } else {
          releaseCompressor = () -> { };
        }
        ZstdFrames frames = new ZstdFrames(stored, compressor);
        sink = frames;
        long ownMemory = shared == null ? compressor.memory() : 0;
        workingMemory = () -> frames.bufferMemory() + ownMemory;
      }
      default -> {
        sink = new BufferedOutputStream(stored, 16 * 1024);
        releaseCompressor = () -> { };
        workingMemory = () -> 16 * 1024;
      }
    }
    this.body = new CountingOutputStream(sink);
  }

  /** The offset the next record or hole starts at. */
  public long nextOffset() {
    return nextOffset + pendingHole;
  }

  public long firstOffset() {
    return firstOffset;
  }

  public long recordCount() {
    return recordCount;
  }

  /** Bytes of the body before compression, so far: the measure of a segment's size. */
  public long decodedBytes() {
    return body.count;
  }

  /** Memory the open writer holds: its stored body so far, its buffers, and its own compressor if it has one. */
  public long memory() {
    return stored.size() + workingMemory.getAsLong();
  }

  /** Whether no offset has been covered yet (nothing to write). */
  public boolean isEmpty() {
    return nextOffset() == firstOffset;
  }

  /** Appends a record; offsets skipped since the last entry become a hole. */
  public void append(BackupRecord record) {
    requireOpen();
    if (record.offset() < nextOffset()) {
      throw new IllegalArgumentException("offset " + record.offset() + " of partition " + partition
          + " is below the next expected offset " + nextOffset() + " (offsets must increase)");
    }
    pendingHole += record.offset() - nextOffset();
    // One record is encoded into a reusable buffer, then written in one call: far cheaper than a
    // call per varint byte through the compressing stream.
    ByteSink out = scratch;
    out.reset();
    out.write(RECORD);
    out.write(record.timestampKind().code());
    out.writeVarint(Varints.zigzag(record.timestamp() - previousTimestamp));
    writeNullable(out, record.key());
    writeNullable(out, record.value());
    out.writeVarint(record.headers().size());
    for (RecordHeader header : record.headers()) {
      byte[] key = header.key().getBytes(StandardCharsets.UTF_8);
      out.writeVarint(key.length);
      out.write(key, 0, key.length);
      writeNullable(out, header.value());
    }
    try {
      flushHole();
      body.write(out.array(), 0, out.size());
    } catch (IOException e) {
      throw new UncheckedIOException(e); // in-memory streams: not expected
    }
    if (recordCount == 0) {
      minTimestamp = record.timestamp();
      maxTimestamp = record.timestamp();
    } else {
      minTimestamp = Math.min(minTimestamp, record.timestamp());
      maxTimestamp = Math.max(maxTimestamp, record.timestamp());
    }
    previousTimestamp = record.timestamp();
    recordCount++;
    nextOffset = record.offset() + 1;
  }

  /** Records that the partition moved on to {@code offset}: offsets not yet covered below it are a hole. */
  public void advanceTo(long offset) {
    requireOpen();
    if (offset > nextOffset()) {
      pendingHole += offset - nextOffset();
    }
  }

  /** Ends the segment at the last covered offset and returns it. Fails if nothing is covered. */
  public EncodedSegment finish() {
    requireOpen();
    if (isEmpty()) {
      throw new IllegalStateException("segment of partition " + partition + " at offset " + firstOffset
          + " covers no offset");
    }
    try {
      flushHole();
      body.write(END);
      body.close(); // finishes the compressed stream
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      closeCompressor();
    }
    SegmentHeader header = new SegmentHeader(codec, topicId, partition, firstOffset, nextOffset - 1, recordCount,
        minTimestamp, maxTimestamp, body.count, stored.size(), previousSha256, null);
    MessageDigest sha = Hashes.sha256();
    sha.update(header.encodeHashedPart());
    stored.forEachBlock(sha::update);
    header = header.withSha256(Hashes.hex(sha.digest()));
    return new EncodedSegment(header, new SegmentContent(header.encode(), stored));
  }

  /** Drops the segment without writing it. */
  public void discard() {
    if (!closed) {
      closeCompressor();
    }
  }

  private void flushHole() throws IOException {
    if (pendingHole > 0) {
      body.write(HOLE);
      Varints.write(body, pendingHole);
      nextOffset += pendingHole;
      pendingHole = 0;
    }
  }

  private static void writeNullable(ByteSink out, byte[] bytes) {
    if (bytes == null) {
      out.write(0);
    } else {
      out.writeVarint(bytes.length + 1L);
      out.write(bytes, 0, bytes.length);
    }
  }

  private void requireOpen() {
    if (closed) {
      throw new IllegalStateException("segment already finished or discarded");
    }
  }

  private void closeCompressor() {
    closed = true;
    releaseCompressor.run();
  }

  /** A finished segment: its header and the object's bytes. */
  public record EncodedSegment(SegmentHeader header, Content content) {}

  /** The object: header then body, streamed from memory without joining them into one array. */
  private static final class SegmentContent extends Content {
    private final byte[] header;
    private final BlockSink body;

    SegmentContent(byte[] header, BlockSink body) {
      this.header = header;
      this.body = body;
    }

    @Override
    public long size() {
      return header.length + body.size();
    }

    @Override
    public InputStream open() {
      List<InputStream> parts = new ArrayList<>();
      parts.add(new ByteArrayInputStream(header));
      body.forEachBlock((block, offset, length) -> parts.add(new ByteArrayInputStream(block, offset, length)));
      return new SequenceInputStream(Collections.enumeration(parts));
    }

    @Override
    public byte[] toByteArray() {
      byte[] all = Arrays.copyOf(header, Math.toIntExact(size()));
      int[] at = {header.length};
      body.forEachBlock((block, offset, length) -> {
        System.arraycopy(block, offset, all, at[0], length);
        at[0] += length;
      });
      return all;
    }
  }

  /**
   * The zstd body: the decoded body cut into blocks of {@link ZstdBlockCompressor#BLOCK} bytes, each
   * compressed into a frame of its own. The block buffer grows with the body up to a whole block, so a
   * small segment holds little.
   */
  private static final class ZstdFrames extends ArrayFiller {
    private final OutputStream out;
    private final ZstdBlockCompressor compressor;

    ZstdFrames(OutputStream out, ZstdBlockCompressor compressor) {
      this.out = out;
      this.compressor = compressor;
      array = new byte[16 * 1024];
    }

    @Override
    void makeRoom() throws IOException {
      if (array.length < ZstdBlockCompressor.BLOCK) {
        array = Arrays.copyOf(array, Math.min(ZstdBlockCompressor.BLOCK, array.length * 2));
      } else {
        compressBlock();
      }
    }

    /** Compresses the last block, full or not; the body has one, as it ends with an END entry. */
    @Override
    public void close() throws IOException {
      compressBlock();
    }

    private void compressBlock() throws IOException {
      compressor.compress(array, used, out);
      used = 0;
    }

    long bufferMemory() {
      return array.length;
    }
  }

  /**
   * The compressed body, in blocks that double from 8 KiB up to 256 KiB: it grows without copying what
   * it holds, and no block is large enough to be a humongous object for G1 in a small heap.
   */
  private static final class BlockSink extends ArrayFiller {
    private static final int FIRST_BLOCK = 8 * 1024;
    private static final int MAX_BLOCK = 256 * 1024;
    private final List<byte[]> blocks = new ArrayList<>();
    /** Bytes in the blocks before the current one. */
    private long filled;

    @Override
    void makeRoom() {
      filled += used;
      array = new byte[array == null ? FIRST_BLOCK : Math.min(MAX_BLOCK, array.length * 2)];
      blocks.add(array);
      used = 0;
    }

    long size() {
      return filled + used;
    }

    /** Hands each block's filled part, in order. */
    void forEachBlock(BlockConsumer consumer) {
      for (byte[] block : blocks) {
        consumer.accept(block, 0, block == array ? used : block.length);
      }
    }

    interface BlockConsumer {
      void accept(byte[] block, int offset, int length);
    }
  }

  /** A stream that fills one array at a time; what happens when it is full is the subclass's choice. */
  private abstract static class ArrayFiller extends OutputStream {
    /** The array being filled; null until the subclass allocates one. */
    byte[] array;
    int used;

    /** Makes room in {@link #array} (which is full, or null) for at least one more byte. */
    abstract void makeRoom() throws IOException;

    @Override
    public void write(int b) throws IOException {
      if (array == null || used == array.length) {
        makeRoom();
      }
      array[used++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      while (len > 0) {
        if (array == null || used == array.length) {
          makeRoom();
        }
        int n = Math.min(len, array.length - used);
        System.arraycopy(b, off, array, used, n);
        used += n;
        off += n;
        len -= n;
      }
    }
  }

  /** A growable buffer that one record is encoded into before it is written in one call. */
  private static final class ByteSink extends OutputStream {
    private byte[] buf = new byte[8 * 1024];
    private int size;

    @Override
    public void write(int b) {
      ensure(1);
      buf[size++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      ensure(len);
      System.arraycopy(b, off, buf, size, len);
      size += len;
    }

    private void ensure(int more) {
      if (size + more > buf.length) {
        long wanted = Math.max((long) buf.length * 2, (long) size + more);
        if (wanted > Integer.MAX_VALUE - 16) {
          throw new IllegalStateException("segment larger than 2 GiB");
        }
        buf = Arrays.copyOf(buf, (int) wanted);
      }
    }

    void writeVarint(long value) {
      ensure(10);
      while ((value & ~0x7FL) != 0) {
        buf[size++] = (byte) ((value & 0x7F) | 0x80);
        value >>>= 7;
      }
      buf[size++] = (byte) value;
    }

    void reset() {
      if (buf.length > 1024 * 1024) {
        buf = new byte[8 * 1024]; // do not keep a large record's buffer for the segment's life
      }
      size = 0;
    }

    byte[] array() {
      return buf;
    }

    int size() {
      return size;
    }
  }

  private static final class CountingOutputStream extends OutputStream {
    private final OutputStream out;
    private long count;

    CountingOutputStream(OutputStream out) {
      this.out = out;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      count += len;
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }
}
