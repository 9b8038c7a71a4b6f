package dev.ratisoffload.kafka.restore;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;

/**
 * Whether a target topic can keep what a restore would write, decided before anything is sent. Each
 * refusal names the setting and what would make it fit.
 */
final class TargetChecks {

  /** A codec's framing may make an incompressible record's batch this much larger than its upper bound. */
  private static final int SLACK_BYTES = 1024;
  static final String NONE = "uncompressed";

  /** How large the largest record of a plan is as a batch of its own, as the producer will send it. */
  interface BatchSizer {
    int batchBytes(PartitionPlan plan);

    /** How the batches are sent: "uncompressed" ({@link #NONE}) or "compressed with CODEC". */
    String describe();
  }

  private TargetChecks() {}

  /** The partition counts must match: a record's partition is part of what is restored. */
  static List<String> partitionCount(String target, int targetPartitions, String source, int backedUp) {
    if (targetPartitions == backedUp) {
      return List.of();
    }
    return List.of("target topic " + target + " has " + targetPartitions + " partitions, the backup of " + source
        + " has " + backedUp + ": create the topic with " + backedUp + " partitions (or let --create-topic create it)");
  }

  /** Preserve mode keeps the backed-up timestamps, which a LogAppendTime topic would replace. */
  static List<String> timestampType(String target, Map<String, String> configs, OffsetMode mode) {
    if (mode == OffsetMode.PRESERVE && !TargetTopic.keepsCreateTime(configs)) {
      return List.of("target topic " + target + " has " + TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG
          + "=LogAppendTime: the broker would replace every restored timestamp; set it to CreateTime to restore"
          + " with --offsets preserve, or restore with --offsets renumber, which accepts new timestamps");
    }
    return List.of();
  }

  /** One-shot: every restored partition must be empty. */
  static List<String> empty(String target, Map<Integer, Long> highWatermarks) {
    List<String> refusals = new ArrayList<>();
    highWatermarks.forEach((partition, hw) -> {
      if (hw > 0) {
        refusals.add("target topic " + target + " is not empty: partition " + partition + " has high watermark " + hw
            + "; a restore writes only into empty partitions: delete the topic and create it again, or choose"
            + " another --target-topic");
      }
    });
    return refusals;
  }

  /** What the records to restore need of the target's retention and size limits. */
  static List<String> capacity(String target, Map<String, String> configs, Collection<PartitionPlan> plans,
      Instant now, BatchSizer batches) {
    List<String> refusals = new ArrayList<>();
    PartitionPlan oldest = null;
    for (PartitionPlan plan : plans) {
      if (plan.records() == 0) {
        continue;
      }
      if (oldest == null || plan.minTimestamp() < oldest.minTimestamp()) {
        oldest = plan;
      }
    }
    if (oldest != null && TargetTopic.keepsCreateTime(configs) && oldest.minTimestamp() >= 0) {
      long age = now.toEpochMilli() - oldest.minTimestamp();
      long retention = number(configs, TopicConfig.RETENTION_MS_CONFIG);
      if (deletes(configs) && retention >= 0 && retention < age) {
        refusals.add("target topic " + target + " has " + TopicConfig.RETENTION_MS_CONFIG + "=" + retention + " ("
            + human(retention) + "), shorter than the age of the oldest record to restore (" + human(age)
            + ", partition " + oldest.partition() + "): the broker would delete restored records at once; raise "
            + TopicConfig.RETENTION_MS_CONFIG + " (-1 keeps records forever)");
      }
      long before = number(configs, TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG);
      if (before >= 0 && before < age) {
        refusals.add("target topic " + target + " has " + TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG + "="
            + before + " (" + human(before) + "): the broker refuses records older than that, and the oldest to"
            + " restore is " + human(age) + " old (partition " + oldest.partition() + "); raise it");
      }
    }
    for (PartitionPlan plan : plans) {
      refusals.addAll(retentionBytes(target, configs, plan.partition(), plan.storedBytes()));
    }
    long max = number(configs, TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
    if (max >= 0) {
      for (PartitionPlan plan : plans) {
        // The upper bound first: reading and compressing the record is needed only near the limit.
        if (plan.records() > 0 && plan.maxRecordBytes() > max - SLACK_BYTES) {
          int bytes = batches.batchBytes(plan);
          if (bytes > max) {
            refusals.add("target topic " + target + " has " + TopicConfig.MAX_MESSAGE_BYTES_CONFIG + "=" + max
                + ", the record at offset " + plan.maxRecordOffset() + " of partition " + plan.partition() + " is "
                + bytes + " bytes as a batch of its own (" + batches.describe() + "): the broker would refuse it;"
                + " raise " + TopicConfig.MAX_MESSAGE_BYTES_CONFIG + (batches.describe().equals(NONE)
                ? " or restore with --compression" : ""));
          }
        }
      }
    }
    return refusals;
  }

  /**
   * A partition's records must fit its {@code retention.bytes}, or the broker deletes the oldest at once.
   * {@code bytes} is what the backup stores of them, compressed: less than the target will hold for any
   * codec but one that compresses better, so a refusal is all but certain to be one the broker makes.
   */
  static List<String> retentionBytes(String target, Map<String, String> configs, int partition, long bytes) {
    long retention = number(configs, TopicConfig.RETENTION_BYTES_CONFIG);
    if (deletes(configs) && retention >= 0 && retention < bytes) {
      return List.of("target topic " + target + " has " + TopicConfig.RETENTION_BYTES_CONFIG + "=" + retention
          + ", less than the " + bytes + " bytes of partition " + partition + " to restore (as the backup stores"
          + " them, compressed): the broker would delete the oldest restored records at once; raise "
          + TopicConfig.RETENTION_BYTES_CONFIG + " (-1 keeps any size)");
    }
    return List.of();
  }

  private static boolean deletes(Map<String, String> configs) {
    return configs.getOrDefault(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE)
        .contains(TopicConfig.CLEANUP_POLICY_DELETE);
  }

  /** A numeric config, or -1 when absent or unlimited. */
  private static long number(Map<String, String> configs, String name) {
    String value = configs.get(name);
    if (value == null) {
      return -1;
    }
    try {
      long n = Long.parseLong(value.trim());
      return n == Long.MAX_VALUE ? -1 : n;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static String human(long millis) {
    Duration d = Duration.ofMillis(millis);
    if (d.toDays() >= 2) {
      return d.toDays() + " days";
    }
    if (d.toHours() >= 2) {
      return d.toHours() + " h";
    }
    if (d.toMinutes() >= 2) {
      return d.toMinutes() + " min";
    }
    return millis + " ms";
  }
}
