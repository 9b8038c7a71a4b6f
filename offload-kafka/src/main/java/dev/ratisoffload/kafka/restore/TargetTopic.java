package dev.ratisoffload.kafka.restore;

import dev.ratisoffload.kafka.KafkaClients;
import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import dev.ratisoffload.kafka.format.BackupRecord;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The topic a restore writes into, as its cluster describes it: partitions, configs, offsets, records.
 * Whether it exists is only ever asked through the admin client, which never makes a broker create a
 * topic; the producer (whose metadata requests always may) is only started once it exists.
 */
final class TargetTopic implements AutoCloseable {

  private final RestoreSettings settings;
  private final String topic;
  private final Admin admin;

  TargetTopic(RestoreSettings settings) {
    this.settings = settings;
    this.topic = settings.targetTopic();
    this.admin = Admin.create(KafkaClients.adminProperties(settings.bootstrapServers(),
        "offload-kafka-restore-admin-" + topic, settings.brokerTimeout(), settings.clientProperties()));
  }

  String name() {
    return topic;
  }

  /** The partition count, or empty when the topic does not exist. */
  Optional<Integer> partitions() {
    try {
      TopicDescription d = await(admin.describeTopics(List.of(topic)).topicNameValues().get(topic), "describe topic");
      return Optional.of(d.partitions().size());
    } catch (KafkaOffloadException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** The effective value of every config the broker discloses. */
  Map<String, String> configs() {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    Config config = await(admin.describeConfigs(List.of(resource)).values().get(resource), "describe the configs of");
    Map<String, String> values = new TreeMap<>();
    for (ConfigEntry entry : config.entries()) {
      if (entry.value() != null) {
        values.put(entry.name(), entry.value());
      }
    }
    return values;
  }

  /** Whether the broker keeps the producer's timestamps (CreateTime) rather than stamping its own. */
  static boolean keepsCreateTime(Map<String, String> configs) {
    return !"LogAppendTime".equals(configs.get(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG));
  }

  /** Creates the topic and waits until the cluster describes it with every partition. */
  void create(int partitions, short replicationFactor, Map<String, String> configs) {
    NewTopic newTopic = new NewTopic(topic, partitions, replicationFactor).configs(configs);
    await(admin.createTopics(List.of(newTopic)).all(), "create topic");
    awaitPartitions(partitions, "describe the topic " + topic + " just created");
  }

  /** Adds partitions up to {@code total} and waits until the cluster describes every one. */
  void increasePartitions(int total) {
    await(admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(total))).all(), "add partitions to");
    awaitPartitions(total, "describe the partitions just added to " + topic);
  }

  private void awaitPartitions(int partitions, String what) {
    long deadline = System.nanoTime() + settings.brokerTimeout().toNanos();
    while (!partitions().equals(Optional.of(partitions))) {
      if (System.nanoTime() > deadline) {
        throw KafkaClients.unreachable(settings.bootstrapServers(), settings.brokerTimeout(), what, null);
      }
      try {
        Thread.sleep(50); // metadata reaches the brokers shortly after the controller created the topic
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new KafkaOffloadException(Kind.UNAVAILABLE, "interrupted while waiting for topic " + topic, e);
      }
    }
  }

  /** Each partition's high watermark: where the next record goes. */
  Map<Integer, Long> endOffsets(Collection<Integer> partitions) {
    return offsets(partitions, OffsetSpec.latest(), "read the high watermarks of");
  }

  /** Each partition's log start offset: the oldest record retention kept. */
  Map<Integer, Long> startOffsets(Collection<Integer> partitions) {
    return offsets(partitions, OffsetSpec.earliest(), "read the log start offsets of");
  }

  private Map<Integer, Long> offsets(Collection<Integer> partitions, OffsetSpec spec, String what) {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    partitions.forEach(p -> request.put(new TopicPartition(topic, p), spec));
    Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> result =
        await(admin.listOffsets(request).all(), what);
    Map<Integer, Long> offsets = new TreeMap<>();
    result.forEach((tp, info) -> offsets.put(tp.partition(), info.offset()));
    return offsets;
  }

  /**
   * The last record stored below {@code end} and at or after {@code start}, or empty when that range
   * holds none. The last offsets may hold no record (transaction markers, compacted records), so the
   * range is read back in windows growing from the end until a record is found.
   */
  Optional<BackupRecord> lastRecord(int partition, long start, long end) {
    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(readBackProperties(), new ByteArrayDeserializer(),
        new ByteArrayDeserializer());
    try {
      long window = 1;
      for (long from = Math.max(start, end - window); ; from = Math.max(start, end - window)) {
        Optional<BackupRecord> last = lastIn(consumer, partition, from, end);
        if (last.isPresent() || from == start) {
          return last;
        }
        window *= 16;
      }
    } finally {
      KafkaClients.closeAtOnce(consumer);
    }
  }

  /** The last record in {@code [from, end)}: reads until the consumer's position reaches {@code end}. */
  private Optional<BackupRecord> lastIn(KafkaConsumer<byte[], byte[]> consumer, int partition, long from, long end) {
    TopicPartition tp = new TopicPartition(topic, partition);
    String what = "read offsets " + from + "-" + (end - 1) + " of " + topic + "/" + partition;
    try {
      consumer.assign(List.of(tp));
      consumer.seek(tp, from);
      BackupRecord last = null;
      long deadline = System.nanoTime() + settings.brokerTimeout().toNanos();
      while (consumer.position(tp, settings.brokerTimeout()) < end) {
        if (System.nanoTime() > deadline) {
          throw KafkaClients.unreachable(settings.bootstrapServers(), settings.brokerTimeout(), what, null);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200)).records(tp)) {
          if (r.offset() < end) {
            last = KafkaClients.toBackupRecord(r);
          }
        }
      }
      return Optional.ofNullable(last);
    } catch (org.apache.kafka.clients.consumer.OffsetOutOfRangeException e) {
      return Optional.empty();
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      throw KafkaClients.unreachable(settings.bootstrapServers(), settings.brokerTimeout(), what, e);
    }
  }

  private Map<String, Object> readBackProperties() {
    Map<String, Object> p = new HashMap<>(settings.clientProperties());
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "offload-kafka-restore-check-" + topic);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
    // Its metadata request would otherwise make a broker with auto.create.topics.enable create a topic
    // deleted meanwhile, with the broker's defaults: the target is only ever created by create().
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) settings.brokerTimeout().toMillis());
    p.remove(ConsumerConfig.GROUP_ID_CONFIG);
    return p;
  }

  private <T> T await(KafkaFuture<T> future, String what) {
    return KafkaClients.await(future, settings.brokerTimeout(), settings.bootstrapServers(), what, topic);
  }

  @Override
  public void close() {
    admin.close(Duration.ZERO); // every call was awaited; a stop must not wait for a broker that is gone
  }

  /** The exception for a target that refuses the restore; nothing was written. */
  static KafkaOffloadException refused(String message) {
    return new KafkaOffloadException(Kind.REFUSED, message);
  }
}
