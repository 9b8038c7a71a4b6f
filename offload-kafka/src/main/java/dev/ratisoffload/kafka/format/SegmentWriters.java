package dev.ratisoffload.kafka.format;

import org.apache.kafka.common.Uuid;

/**
 * Opens the segments of one backup, with the codec for writing ({@link Codec#forWriting}) at its
 * default level. A backup writes every partition's segment on one thread, so its zstd writers share one
 * {@link ZstdBlockCompressor} (about 830 KiB), and an open segment holds only its own buffers. Not
 * thread-safe; close it once its writers are finished or discarded.
 */
public final class SegmentWriters implements AutoCloseable {

  /** Null when segments are written with zlib (zstd's native library cannot be loaded here). */
  private final ZstdBlockCompressor zstd;

  public SegmentWriters() {
    zstd = Codec.forWriting() == Codec.ZSTD ? new ZstdBlockCompressor(Codec.ZSTD.defaultLevel()) : null;
  }

  /** A writer for a new segment (see {@link SegmentWriter#SegmentWriter(Uuid, int, long, String)}). */
  public SegmentWriter open(Uuid topicId, int partition, long firstOffset, String previousSha256) {
    return zstd == null
        ? new SegmentWriter(topicId, partition, firstOffset, previousSha256)
        : new SegmentWriter(topicId, partition, firstOffset, previousSha256, zstd);
  }

  @Override
  public void close() {
    if (zstd != null) {
      zstd.close();
    }
  }
}
