package dev.ratisoffload.kafka.backup;

import dev.ratisoffload.kafka.KafkaClients;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;

/** Asks the cluster what a topic is now: its id, partitions, replication factor and configs. */
final class TopicInspector {

  /** A topic as the cluster describes it. */
  record TopicState(Uuid topicId, int partitions, int replicationFactor) {}

  /** A topic's configs: effective non-sensitive values, and the names set on the topic itself. */
  record TopicConfigs(Map<String, String> values, List<String> topicLevel) {}

  private final Admin admin;
  private final String topic;
  private final String bootstrap;
  private final Duration timeout;

  TopicInspector(Admin admin, String topic, String bootstrap, Duration timeout) {
    this.admin = admin;
    this.topic = topic;
    this.bootstrap = bootstrap;
    this.timeout = timeout;
  }

  String topic() {
    return topic;
  }

  TopicState describe() {
    TopicDescription d = await(admin.describeTopics(List.of(topic)).topicNameValues().get(topic), "describe topic");
    int replication = d.partitions().isEmpty() ? 1 : d.partitions().get(0).replicas().size();
    return new TopicState(d.topicId(), d.partitions().size(), Math.max(1, replication));
  }

  TopicConfigs configs() {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    Config config = await(admin.describeConfigs(List.of(resource)).values().get(resource), "describe topic configs");
    Map<String, String> values = new TreeMap<>();
    List<String> topicLevel = new java.util.ArrayList<>();
    for (ConfigEntry entry : config.entries()) {
      if (entry.isSensitive() || entry.value() == null) {
        continue;
      }
      values.put(entry.name(), entry.value());
      if (entry.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG) {
        topicLevel.add(entry.name());
      }
    }
    return new TopicConfigs(values, topicLevel);
  }

  private <T> T await(KafkaFuture<T> future, String what) {
    return KafkaClients.await(future, timeout, bootstrap, what, topic);
  }
}
