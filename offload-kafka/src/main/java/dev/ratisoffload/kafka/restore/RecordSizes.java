package dev.ratisoffload.kafka.restore;

import dev.ratisoffload.kafka.format.RecordOutline;

/** How many bytes a record takes in a batch of its own, at most: what the target's size limits must allow. */
final class RecordSizes {

  /** A record batch's fixed header (magic 2). */
  private static final int BATCH_OVERHEAD = 61;
  /** Length, attributes, timestamp and offset deltas, key and value lengths, header count, all as varints. */
  private static final int RECORD_OVERHEAD = 5 + 1 + 10 + 5 + 5 + 5 + 5;
  /** A header's key and value lengths. */
  private static final int HEADER_OVERHEAD = 5 + 5;

  private RecordSizes() {}

  static int upperBound(RecordOutline record) {
    long size = BATCH_OVERHEAD + RECORD_OVERHEAD + (long) HEADER_OVERHEAD * record.headers().size()
        + record.payloadBytes();
    return (int) Math.min(Integer.MAX_VALUE, size);
  }
}
