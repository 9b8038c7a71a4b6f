package dev.ratisoffload.kafka.format;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a backup knows about one topic incarnation: its id, partition count, replication factor and
 * configs, and how it was read. A new version is written whenever one of these changes; the newest
 * version describes the topic as the backup last saw it.
 *
 * @param configs the effective value of every non-sensitive topic config, by name
 * @param topicConfigs the names of the configs set on the topic itself (not inherited from the broker's
 *     defaults): what a restore sets when it creates the topic
 * @param isolation {@code read_committed} or {@code read_uncommitted}: with read_committed, aborted
 *     transactional records are holes in the chain
 */
@JsonPropertyOrder({"format", "cluster", "topic", "topicId", "partitions", "replicationFactor", "isolation",
    "configs", "topicConfigs", "createdAt", "toolVersion"})
public record TopicManifest(
    int format,
    String cluster,
    String topic,
    String topicId,
    int partitions,
    int replicationFactor,
    String isolation,
    Map<String, String> configs,
    List<String> topicConfigs,
    Instant createdAt,
    String toolVersion) {

  public static final int FORMAT_VERSION = 1;
  public static final String READ_COMMITTED = "read_committed";
  public static final String READ_UNCOMMITTED = "read_uncommitted";

  @JsonCreator
  public TopicManifest(
      @JsonProperty(value = "format", required = true) int format,
      @JsonProperty(value = "cluster", required = true) String cluster,
      @JsonProperty(value = "topic", required = true) String topic,
      @JsonProperty(value = "topicId", required = true) String topicId,
      @JsonProperty(value = "partitions", required = true) int partitions,
      @JsonProperty(value = "replicationFactor", required = true) int replicationFactor,
      @JsonProperty(value = "isolation", required = true) String isolation,
      @JsonProperty(value = "configs", required = true) Map<String, String> configs,
      @JsonProperty(value = "topicConfigs", required = true) List<String> topicConfigs,
      @JsonProperty(value = "createdAt", required = true) Instant createdAt,
      @JsonProperty(value = "toolVersion", required = true) String toolVersion) {
    this.format = format;
    this.cluster = cluster;
    this.topic = topic;
    this.topicId = topicId;
    this.partitions = partitions;
    this.replicationFactor = replicationFactor;
    this.isolation = isolation;
    this.configs = configs == null ? null : new TreeMap<>(configs);
    this.topicConfigs = topicConfigs == null ? null : topicConfigs.stream().sorted().toList();
    this.createdAt = createdAt;
    this.toolVersion = toolVersion;
  }

  /** Whether both describe the topic the same way (when and by what they were written aside). */
  public boolean sameTopicState(TopicManifest other) {
    return other != null && format == other.format && cluster.equals(other.cluster) && topic.equals(other.topic)
        && topicId.equals(other.topicId) && partitions == other.partitions
        && replicationFactor == other.replicationFactor && isolation.equals(other.isolation)
        && configs.equals(other.configs) && topicConfigs.equals(other.topicConfigs);
  }

  /** The value of a config, or null if the manifest does not hold it. */
  public String config(String name) {
    return configs.get(name);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TopicManifest m && sameTopicState(m) && Objects.equals(createdAt, m.createdAt)
        && Objects.equals(toolVersion, m.toolVersion);
  }

  @Override
  public int hashCode() {
    return Objects.hash(topic, topicId, partitions, configs, createdAt);
  }
}
