package dev.ratisoffload.kafka.format;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Compresses a zstd segment body a block at a time, each block in one call into a Zstandard frame of
 * its own. One call per block is about a tenth faster than a streaming compressor (whose window wraps
 * around its buffer), and its context is less than half the size; each frame is compressed with its own
 * block's history only, which blocks of this size barely lose by.
 *
 * <p>The context and the output buffer are reused block after block, so writers that run on one thread
 * share one compressor (a backup's open segments, one per partition): each open segment then holds only
 * its block buffer. Every call starts a new frame from a reset session, so the output depends only on
 * the block and the level, not on what the compressor compressed before. Not thread-safe.
 */
final class ZstdBlockCompressor implements AutoCloseable {

  /** Decoded bytes per frame. Below half a G1 region of a 256 MiB heap (1 MiB): no humongous buffers. */
  static final int BLOCK = 256 * 1024;
  /**
   * The context's workspace for one call on a block at level 1, as zstd sizes it (literals, sequences,
   * hash table: about 560 KiB). Less of it was resident when measured (124 - 288 KiB on zeros, JSON-like
   * text and random letters), but data with many short matches may touch all of it.
   */
  private static final long CONTEXT_MEMORY = 576 * 1024;

  private final ZstdCompressCtx context = new ZstdCompressCtx();
  private final byte[] frame = new byte[Math.toIntExact(Zstd.compressBound(BLOCK))];

  /**
   * Needs zstd's native library: check {@link Codec#forWriting} first.
   *
   * @param level zstd's compression level (1 is the fastest of the regular levels)
   */
  ZstdBlockCompressor(int level) {
    context.setLevel(level);
  }

  /** Compresses {@code block[0, length)} into one frame, written to {@code out}. */
  void compress(byte[] block, int length, OutputStream out) throws IOException {
    if (length > BLOCK) {
      throw new IllegalArgumentException("a block of " + length + " bytes is larger than " + BLOCK);
    }
    int size = context.compressByteArray(frame, 0, frame.length, block, 0, length);
    out.write(frame, 0, size);
  }

  /** Memory the compressor holds: its output buffer and its context's workspace. */
  long memory() {
    return frame.length + CONTEXT_MEMORY;
  }

  /** Frees the native context. */
  @Override
  public void close() {
    context.close();
  }
}
