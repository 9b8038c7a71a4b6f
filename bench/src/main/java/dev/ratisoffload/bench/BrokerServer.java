package dev.ratisoffload.bench;

import dev.ratisoffload.testkit.EmbeddedKafka;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

/**
 * The Kafka benchmarks' broker (one KRaft node, broker and controller), in a JVM of its own so that
 * neither our side nor the baseline shares a heap or a garbage collector with it.
 *
 * <p>Commands: {@code bootstrap}, {@code create <topic> <partitions>}, {@code delete <topic>},
 * {@code records <topic>} (the sum of its partitions' high watermarks), {@code cpu} (this process's CPU
 * seconds so far).
 */
public final class BrokerServer {

  public static void main(String[] args) throws Exception {
    // Deleted topics leave the disk a second later instead of a minute: a full run writes gigabytes.
    try (EmbeddedKafka kafka = EmbeddedKafka.start(Map.of("file.delete.delay.ms", "1000"));
        Admin admin = kafka.admin()) {
      ChildJvm.serve(words -> {
        Map<String, Object> reply = new LinkedHashMap<>();
        switch (words[0]) {
          case "bootstrap" -> reply.put("bootstrap", kafka.bootstrapServers());
          case "create" -> kafka.createTopics(new NewTopic(words[1], Integer.parseInt(words[2]), (short) 1));
          case "delete" -> admin.deleteTopics(List.of(words[1])).all().get(60, TimeUnit.SECONDS);
          case "records" -> reply.put("records", records(admin, words[1]));
          case "cpu" -> reply.put("cpuSeconds", PublishPeer.processCpuNanos() / 1e9);
          default -> throw new IllegalArgumentException("unknown command " + words[0]);
        }
        return reply;
      });
    }
    System.exit(0);
  }

  private static long records(Admin admin, String topic) throws Exception {
    TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames().get(60, TimeUnit.SECONDS)
        .get(topic);
    Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
    description.partitions().forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
    return admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS).values().stream()
        .mapToLong(r -> r.offset()).sum();
  }
}
