package dev.ratisoffload.kafka.format;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A record as a verify pass sees it: where it is, its timestamp, and how large its parts are, read with
 * every check {@link SegmentReader#next()} makes but without copying the key and value.
 *
 * @param keyLength the key's length in bytes, -1 for a null key
 * @param valueLength the value's length in bytes, -1 for a null value
 */
public record RecordOutline(long offset, long timestamp, TimestampKind timestampKind, int keyLength,
    int valueLength, List<RecordHeader> headers) implements SegmentEntry {

  public RecordOutline {
    headers = List.copyOf(headers);
  }

  /** The outline of a whole record. */
  public static RecordOutline of(BackupRecord record) {
    return new RecordOutline(record.offset(), record.timestamp(), record.timestampKind(), length(record.key()),
        length(record.value()), record.headers());
  }

  @Override
  public long offsetCount() {
    return 1;
  }

  /** The bytes of the key, the value and every header's key and value (nulls count as none). */
  public long payloadBytes() {
    long bytes = Math.max(0, keyLength) + Math.max(0, valueLength);
    for (RecordHeader header : headers) {
      bytes += header.key().getBytes(StandardCharsets.UTF_8).length + Math.max(0, length(header.value()));
    }
    return bytes;
  }

  private static int length(byte[] bytes) {
    return bytes == null ? -1 : bytes.length;
  }
}
