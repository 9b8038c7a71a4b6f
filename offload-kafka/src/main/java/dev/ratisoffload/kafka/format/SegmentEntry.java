package dev.ratisoffload.kafka.format;

/**
 * What a segment holds at a run of offsets: one record (whole, or its {@link RecordOutline}), or a hole of
 * one or more offsets.
 */
public sealed interface SegmentEntry permits BackupRecord, RecordOutline, Hole {

  /** The first offset this entry covers. */
  long offset();

  /** How many consecutive offsets it covers (1 for a record). */
  long offsetCount();
}
