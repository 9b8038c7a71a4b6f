package dev.ratisoffload.kafka.format;

import dev.ratisoffload.primitives.ClusterIds;
import dev.ratisoffload.primitives.HashedJson;
import dev.ratisoffload.primitives.Printable;
import dev.ratisoffload.store.IntegrityException;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.Uuid;

/**
 * Writes and reads topic manifests: one header line, {@code ratis-offload-kafka-topic 1 sha256=<hex>},
 * then the JSON body, as the Ratis generation manifests are written; the hash covers the body's exact
 * bytes. Reading is strict: unknown or missing fields, duplicate keys and trailing content are errors.
 */
public final class TopicManifestCodec {

  static final String MAGIC = "ratis-offload-kafka-topic";
  public static final int MAX_BYTES = 4 * 1024 * 1024;
  private static final Set<String> ISOLATIONS = Set.of(TopicManifest.READ_COMMITTED, TopicManifest.READ_UNCOMMITTED);

  private TopicManifestCodec() {}

  public static byte[] encode(TopicManifest manifest) {
    String problem = problem(manifest);
    if (problem != null) {
      throw new IllegalArgumentException("invalid topic manifest: " + problem);
    }
    return HashedJson.encode(MAGIC, TopicManifest.FORMAT_VERSION, manifest);
  }

  /** Parses and checks a manifest object read from {@code key}; throws {@link IntegrityException} if invalid. */
  public static TopicManifest decode(byte[] object, String key) {
    TopicManifest manifest;
    try {
      manifest = HashedJson.decode(object, MAGIC, TopicManifest.FORMAT_VERSION, MAX_BYTES, TopicManifest.class);
    } catch (HashedJson.Defect defect) {
      throw corrupt(key, defect.getMessage());
    }
    String problem = problem(manifest);
    if (problem != null) {
      throw corrupt(key, problem);
    }
    return manifest;
  }

  private static IntegrityException corrupt(String key, String problem) {
    return new IntegrityException("topic manifest " + key + " is corrupt: " + problem);
  }

  /**
   * What is wrong with the fields every document of an incarnation starts with (its format, cluster,
   * topic and topic id); null if nothing.
   */
  static String incarnationProblem(int format, int expectedFormat, String cluster, String topic, String topicId) {
    if (format != expectedFormat) {
      return "format " + format;
    }
    if (!ClusterIds.isValid(cluster)) {
      return "cluster id '" + Printable.excerpt(cluster) + "'";
    }
    if (!TopicNames.isValid(topic)) {
      return "topic '" + Printable.excerpt(topic) + "'";
    }
    return topicIdProblem(topicId);
  }

  /** What is wrong with a topic id written in a document (Kafka's canonical form, not zero); null if nothing. */
  static String topicIdProblem(String topicId) {
    try {
      Uuid id = Uuid.fromString(topicId);
      if (!Uuid.ZERO_UUID.equals(id) && id.toString().equals(topicId)) {
        return null;
      }
    } catch (RuntimeException e) {
      // reported below
    }
    return "topic id '" + Printable.excerpt(topicId) + "'";
  }

  static String problem(TopicManifest m) {
    String identity = incarnationProblem(m.format(), TopicManifest.FORMAT_VERSION, m.cluster(), m.topic(),
        m.topicId());
    if (identity != null) {
      return identity;
    }
    if (m.partitions() < 1) {
      return "partitions " + m.partitions();
    }
    if (m.replicationFactor() < 1) {
      return "replication factor " + m.replicationFactor();
    }
    if (!ISOLATIONS.contains(m.isolation())) {
      return "isolation '" + Printable.excerpt(m.isolation()) + "'";
    }
    if (m.configs() == null || m.topicConfigs() == null || m.createdAt() == null || m.toolVersion() == null) {
      return "missing configs, topicConfigs, createdAt or toolVersion";
    }
    for (var e : m.configs().entrySet()) {
      if (e.getKey() == null || e.getKey().isEmpty() || e.getValue() == null) {
        return "config '" + Printable.excerpt(e.getKey()) + "' without a name or value";
      }
    }
    if (!m.configs().keySet().containsAll(m.topicConfigs())
        || new HashSet<>(m.topicConfigs()).size() != m.topicConfigs().size()) {
      return "topicConfigs must be distinct names of configs";
    }
    return null;
  }
}
