package dev.ratisoffload.kafka.format;

/**
 * Offsets inside a segment's range at which the broker returned no record: removed by compaction,
 * used by transaction markers, or holding aborted transactional records (read_committed). A hole is
 * not lost data: the backup saw the partition move past these offsets.
 */
public record Hole(long offset, long count) implements SegmentEntry {

  public Hole {
    if (offset < 0 || count < 1 || offset + count < offset) {
      throw new IllegalArgumentException("invalid hole at offset " + offset + " of " + count + " offsets");
    }
  }

  @Override
  public long offsetCount() {
    return count;
  }

  /** The last offset inside the hole. */
  public long lastOffset() {
    return offset + count - 1;
  }
}
