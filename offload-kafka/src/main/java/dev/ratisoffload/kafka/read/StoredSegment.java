package dev.ratisoffload.kafka.read;

import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;

/** A segment as a listing sees it: what its key names, and its size in bytes. */
public record StoredSegment(SegmentKey id, long size) {

  public String key() {
    return id.key();
  }

  public long firstOffset() {
    return id.firstOffset();
  }

  public long lastOffset() {
    return id.lastOffset();
  }
}
