package dev.ratisoffload.kafka.format;

import dev.ratisoffload.store.IntegrityException;

/** A segment object is not a valid segment, or not the one its key names. Retrying cannot help. */
public class CorruptSegmentException extends IntegrityException {

  private final String segment;

  public CorruptSegmentException(String segment, String problem) {
    super("segment " + segment + " is corrupt: " + problem);
    this.segment = segment;
  }

  /** The key (or name) of the segment. */
  public String segment() {
    return segment;
  }
}
