package dev.ratisoffload.kafka;

import dev.ratisoffload.kafka.format.BackupRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Every record a topic holds, read with a plain consumer: what a restore must have written. */
public final class TopicContents {

  private TopicContents() {}

  /** The records of each partition, by offset, up to the high watermark. */
  public static Map<Integer, List<BackupRecord>> read(String bootstrap, String topic, int partitions) {
    Map<Integer, List<BackupRecord>> records = new TreeMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap,
        "enable.auto.commit", false, "isolation.level", "read_uncommitted", "allow.auto.create.topics", false),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        tps.add(new TopicPartition(topic, p));
        records.put(p, new ArrayList<>());
      }
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> ends = consumer.endOffsets(tps);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (tps.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("could not read " + topic + " up to " + ends + " within 60 s");
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          records.get(r.partition()).add(KafkaClients.toBackupRecord(r));
        }
      }
    }
    return records;
  }

  /** The high watermark of each partition. */
  public static Map<Integer, Long> highWatermarks(String bootstrap, String topic, int partitions) {
    // Never creating the topic: a test that waits for a restore to create it must not race it.
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap,
        "allow.auto.create.topics", false), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        tps.add(new TopicPartition(topic, p));
      }
      Map<Integer, Long> ends = new TreeMap<>();
      consumer.endOffsets(tps).forEach((tp, end) -> ends.put(tp.partition(), end));
      return ends;
    }
  }

  /** The sum of the high watermarks: how many offsets the topic holds. */
  public static long offsets(String bootstrap, String topic, int partitions) {
    return highWatermarks(bootstrap, topic, partitions).values().stream().mapToLong(Long::longValue).sum();
  }
}
