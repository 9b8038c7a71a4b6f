package dev.ratisoffload.kafka.restore;

/** Where restored records land in the target partition. */
public enum OffsetMode {
  /**
   * Every record at its original offset: the chain must hold every offset from 0 on (no holes), the
   * target must keep the records' timestamps (CreateTime).
   */
  PRESERVE,
  /** The records one after the other from offset 0, holes closed up. */
  RENUMBER;

  /** The word the command line uses. */
  public String word() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
