package dev.ratisoffload.kafka.restore;

import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.TimestampKind;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;

/**
 * How a restore compresses what it sends, and how large a record's batch is then, as the broker checks
 * it against {@code max.message.bytes} (the size of the batch as received, after compression).
 *
 * <p>The codec is the {@code --compression} flag's, or else the target topic's {@code compression.type}:
 * a codec there is used by the producer too, so the broker stores the batches as sent instead of
 * compressing them again. The topic value {@code producer} keeps whatever codec each producer used; the
 * backup keeps records, not the original producers' batches, so the restore then sends uncompressed, as
 * the flag value {@code producer} (Kafka's producer default) does.
 */
final class RestoreCompression {

  /** The codecs the Kafka producer takes, and the flag's {@code producer}. */
  static final List<String> FLAG_VALUES = List.of("none", "gzip", "snappy", "lz4", "zstd", "producer");

  private RestoreCompression() {}

  /** Throws {@link IllegalArgumentException} unless the flag's value is one it takes. */
  static void requireValid(Optional<String> flag) {
    if (flag.isPresent() && !FLAG_VALUES.contains(flag.get())) {
      throw new IllegalArgumentException("--compression must be one of " + String.join("|", FLAG_VALUES) + ", not '"
          + flag.get() + "'");
    }
  }

  /** The producer's {@code compression.type}: the flag's, else the target topic's. */
  static String codec(Optional<String> flag, Map<String, String> targetConfigs) {
    String chosen = flag.orElse(targetConfigs.getOrDefault(TopicConfig.COMPRESSION_TYPE_CONFIG, "producer"))
        .toLowerCase(Locale.ROOT);
    return switch (chosen) {
      case "gzip", "snappy", "lz4", "zstd" -> chosen;
      default -> "none"; // none, uncompressed, producer
    };
  }

  /**
   * Sizes a plan's largest record as a batch compressed with {@code codec}.
   *
   * @param recordAt the record of the plan at an offset
   */
  static TargetChecks.BatchSizer sizer(String codec, BiFunction<PartitionPlan, Long, BackupRecord> recordAt) {
    return new TargetChecks.BatchSizer() {
      @Override
      public int batchBytes(PartitionPlan plan) {
        return RestoreCompression.batchBytes(recordAt.apply(plan, plan.maxRecordOffset()), codec);
      }

      @Override
      public String describe() {
        return codec.equals("none") ? TargetChecks.NONE : "compressed with " + codec;
      }
    };
  }

  /** The size of a batch holding only this record, compressed with {@code codec}: what the broker checks. */
  static int batchBytes(BackupRecord record, String codec) {
    MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(1024), Compression.of(codec).build(),
        TimestampType.CREATE_TIME, 0L);
    long timestamp = record.timestampKind() == TimestampKind.NONE ? System.currentTimeMillis() : record.timestamp();
    builder.append(timestamp, record.key(), record.value(), headers(record));
    return builder.build().sizeInBytes();
  }

  private static Header[] headers(BackupRecord record) {
    return record.headers().stream()
        .map(h -> (Header) new org.apache.kafka.common.header.internals.RecordHeader(h.key(), h.value()))
        .toArray(Header[]::new);
  }
}
