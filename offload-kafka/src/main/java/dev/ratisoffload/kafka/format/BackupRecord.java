package dev.ratisoffload.kafka.format;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * A Kafka record as a backup keeps it: offset, timestamp and its kind, key and value (null kept
 * distinct from empty), and the headers in order, duplicates and null values included.
 * Arrays are not copied; callers must not modify them.
 */
public final class BackupRecord implements SegmentEntry {

  private final long offset;
  private final long timestamp;
  private final TimestampKind timestampKind;
  private final byte[] key;
  private final byte[] value;
  private final List<RecordHeader> headers;

  public BackupRecord(long offset, long timestamp, TimestampKind timestampKind, byte[] key, byte[] value,
      List<RecordHeader> headers) {
    if (offset < 0) {
      throw new IllegalArgumentException("negative offset " + offset);
    }
    this.offset = offset;
    this.timestamp = timestamp;
    this.timestampKind = Objects.requireNonNull(timestampKind, "timestamp kind");
    this.key = key;
    this.value = value;
    this.headers = List.copyOf(headers);
  }

  @Override
  public long offset() {
    return offset;
  }

  @Override
  public long offsetCount() {
    return 1;
  }

  /** Milliseconds since the epoch; -1 when the record has none. */
  public long timestamp() {
    return timestamp;
  }

  public TimestampKind timestampKind() {
    return timestampKind;
  }

  /** The key, or null (distinct from an empty key). */
  public byte[] key() {
    return key;
  }

  /** The value, or null (a tombstone on a compacted topic; distinct from an empty value). */
  public byte[] value() {
    return value;
  }

  public List<RecordHeader> headers() {
    return headers;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BackupRecord r && offset == r.offset && timestamp == r.timestamp
        && timestampKind == r.timestampKind && Arrays.equals(key, r.key) && Arrays.equals(value, r.value)
        && headers.equals(r.headers);
  }

  @Override
  public int hashCode() {
    return Objects.hash(offset, timestamp, timestampKind, Arrays.hashCode(key), Arrays.hashCode(value), headers);
  }

  @Override
  public String toString() {
    return "BackupRecord[offset=" + offset + ", timestamp=" + timestamp + " " + timestampKind + ", key="
        + describe(key) + ", value=" + describe(value) + ", headers=" + headers + "]";
  }

  static String describe(byte[] bytes) {
    if (bytes == null) {
      return "null";
    }
    String hex = HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, 16));
    return bytes.length + " bytes " + hex + (bytes.length > 16 ? "..." : "");
  }
}
