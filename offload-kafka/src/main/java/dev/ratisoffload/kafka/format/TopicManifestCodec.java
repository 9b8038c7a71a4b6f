package dev.ratisoffload.kafka.format;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.ratisoffload.format.Hashes;
import dev.ratisoffload.format.ManifestRules;
import dev.ratisoffload.store.IntegrityException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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

  private static final ObjectMapper JSON = JsonMapper.builder()
      .addModule(new JavaTimeModule())
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .enable(SerializationFeature.INDENT_OUTPUT)
      .build();

  private TopicManifestCodec() {}

  public static byte[] encode(TopicManifest manifest) {
    String problem = problem(manifest);
    if (problem != null) {
      throw new IllegalArgumentException("invalid topic manifest: " + problem);
    }
    byte[] body;
    try {
      body = JSON.writeValueAsBytes(manifest);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise topic manifest", e);
    }
    byte[] header = (MAGIC + " " + TopicManifest.FORMAT_VERSION + " sha256=" + Hashes.sha256Hex(body) + "\n")
        .getBytes(StandardCharsets.US_ASCII);
    byte[] object = Arrays.copyOf(header, header.length + body.length);
    System.arraycopy(body, 0, object, header.length, body.length);
    return object;
  }

  /** Parses and checks a manifest object read from {@code key}; throws {@link IntegrityException} if invalid. */
  public static TopicManifest decode(byte[] object, String key) {
    if (object.length > MAX_BYTES) {
      throw corrupt(key, "larger than " + MAX_BYTES + " bytes");
    }
    int newline = -1;
    for (int i = 0; i < Math.min(object.length, 200); i++) {
      if (object[i] == '\n') {
        newline = i;
        break;
      }
    }
    if (newline < 0) {
      throw corrupt(key, "no header line");
    }
    String[] parts = new String(object, 0, newline, StandardCharsets.US_ASCII).split(" ", -1);
    if (parts.length != 3 || !parts[0].equals(MAGIC) || !parts[2].startsWith("sha256=")) {
      throw corrupt(key, "malformed header line");
    }
    if (!parts[1].equals(Integer.toString(TopicManifest.FORMAT_VERSION))) {
      throw corrupt(key, "format version '" + TopicNames.printable(parts[1])
          + "' is not supported by this version (" + TopicManifest.FORMAT_VERSION + ")");
    }
    String actual = Hashes.sha256Hex(object, newline + 1, object.length - newline - 1);
    if (!parts[2].substring("sha256=".length()).equals(actual)) {
      throw corrupt(key, "body hash is " + actual + " but the header says "
          + TopicNames.printable(parts[2].substring(7)) + " (changed, truncated or extended)");
    }
    TopicManifest manifest;
    try {
      manifest = JSON.readValue(object, newline + 1, object.length - newline - 1, TopicManifest.class);
    } catch (java.io.IOException | RuntimeException e) {
      String message = String.valueOf(e.getMessage());
      throw corrupt(key, "unreadable JSON: " + TopicNames.printable(message.split("\n", 2)[0]));
    }
    String problem = manifest == null ? "empty body" : problem(manifest);
    if (problem != null) {
      throw corrupt(key, problem);
    }
    return manifest;
  }

  private static IntegrityException corrupt(String key, String problem) {
    return new IntegrityException("topic manifest " + key + " is corrupt: " + problem);
  }

  static String problem(TopicManifest m) {
    if (m.format() != TopicManifest.FORMAT_VERSION) {
      return "format " + m.format();
    }
    if (!ManifestRules.isValidClusterId(m.cluster())) {
      return "cluster id '" + TopicNames.printable(m.cluster()) + "'";
    }
    if (!TopicNames.isValid(m.topic())) {
      return "topic '" + TopicNames.printable(m.topic()) + "'";
    }
    try {
      Uuid id = Uuid.fromString(m.topicId());
      if (Uuid.ZERO_UUID.equals(id) || !id.toString().equals(m.topicId())) {
        return "topic id '" + m.topicId() + "'";
      }
    } catch (RuntimeException e) {
      return "topic id '" + TopicNames.printable(m.topicId()) + "'";
    }
    if (m.partitions() < 1) {
      return "partitions " + m.partitions();
    }
    if (m.replicationFactor() < 1) {
      return "replication factor " + m.replicationFactor();
    }
    if (!ISOLATIONS.contains(m.isolation())) {
      return "isolation '" + TopicNames.printable(m.isolation()) + "'";
    }
    if (m.configs() == null || m.topicConfigs() == null || m.createdAt() == null || m.toolVersion() == null) {
      return "missing configs, topicConfigs, createdAt or toolVersion";
    }
    for (var e : m.configs().entrySet()) {
      if (e.getKey() == null || e.getKey().isEmpty() || e.getValue() == null) {
        return "config '" + TopicNames.printable(e.getKey()) + "' without a name or value";
      }
    }
    if (!m.configs().keySet().containsAll(m.topicConfigs())
        || new HashSet<>(m.topicConfigs()).size() != m.topicConfigs().size()) {
      return "topicConfigs must be distinct names of configs";
    }
    return null;
  }
}
