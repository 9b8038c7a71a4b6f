package dev.ratisoffload.kafka.format;

import java.util.Arrays;
import java.util.Objects;

/** One record header: a key (never null) and a value that may be null. */
public final class RecordHeader {

  private final String key;
  private final byte[] value;

  public RecordHeader(String key, byte[] value) {
    this.key = Objects.requireNonNull(key, "header key");
    this.value = value;
  }

  public String key() {
    return key;
  }

  /** The value, or null; the caller must not modify it. */
  public byte[] value() {
    return value;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RecordHeader h && key.equals(h.key) && Arrays.equals(value, h.value);
  }

  @Override
  public int hashCode() {
    return 31 * key.hashCode() + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return key + "=" + BackupRecord.describe(value);
  }
}
