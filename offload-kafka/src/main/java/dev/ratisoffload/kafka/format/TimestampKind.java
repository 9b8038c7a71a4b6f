package dev.ratisoffload.kafka.format;

/**
 * What a record's timestamp means, as Kafka's {@code TimestampType} says; stored as one byte
 * ({@link #code()}), independent of Kafka's own numbering.
 */
public enum TimestampKind {
  /** The record has no timestamp (message format 0); its timestamp is -1. */
  NONE(0),
  /** Set by the producer (or its application). */
  CREATE_TIME(1),
  /** Set by the broker when it appended the record (topic config {@code message.timestamp.type}). */
  LOG_APPEND_TIME(2);

  private final int code;

  TimestampKind(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** The kind for a stored code, or null if the code is unknown. */
  static TimestampKind ofCode(int code) {
    for (TimestampKind kind : values()) {
      if (kind.code == code) {
        return kind;
      }
    }
    return null;
  }
}
