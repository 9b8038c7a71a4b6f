package dev.ratisoffload.kafka.format;

import dev.ratisoffload.primitives.HashedJson;
import dev.ratisoffload.primitives.Printable;
import dev.ratisoffload.store.IntegrityException;

/**
 * Writes and reads offset maps in the form every manifest uses: a header line,
 * {@code ratis-offload-kafka-offset-map 1 sha256=<hex>}, then a strict JSON body.
 */
public final class OffsetMapCodec {

  static final String MAGIC = "ratis-offload-kafka-offset-map";
  /** About two million runs: a backup with that many holes per restore is not one this map serves. */
  public static final int MAX_BYTES = 64 * 1024 * 1024;

  private OffsetMapCodec() {}

  public static byte[] encode(OffsetMap map) {
    String problem = problem(map);
    if (problem != null) {
      throw new IllegalArgumentException("invalid offset map: " + problem);
    }
    return HashedJson.encode(MAGIC, OffsetMap.FORMAT_VERSION, map);
  }

  /** Parses and checks a map read from {@code key}; throws {@link IntegrityException} if invalid. */
  public static OffsetMap decode(byte[] object, KafkaLayout.OffsetMapKey key) {
    OffsetMap map;
    try {
      map = HashedJson.decode(object, MAGIC, OffsetMap.FORMAT_VERSION, MAX_BYTES, OffsetMap.class);
    } catch (HashedJson.Defect defect) {
      throw corrupt(key, defect.getMessage());
    }
    String problem = problem(map);
    if (problem == null && !(map.cluster().equals(key.cluster()) && map.topic().equals(key.topic())
        && map.topicId().equals(key.topicId().toString())
        && map.targetTopicId().equals(key.targetTopicId().toString())
        && map.writtenAt().toEpochMilli() == key.writtenAtMillis())) {
      problem = "it maps cluster " + map.cluster() + " topic " + map.topic() + " id " + map.topicId()
          + " into topic id " + map.targetTopicId() + " at " + map.writtenAt() + ", not what its key names";
    }
    if (problem != null) {
      throw corrupt(key, problem);
    }
    return map;
  }

  private static IntegrityException corrupt(KafkaLayout.OffsetMapKey key, String problem) {
    return new IntegrityException("offset map " + key.key() + " is corrupt: " + problem + ". The restored records"
        + " are not affected; the consumer groups were not changed");
  }

  static String problem(OffsetMap m) {
    String identity = TopicManifestCodec.incarnationProblem(m.format(), OffsetMap.FORMAT_VERSION, m.cluster(),
        m.topic(), m.topicId());
    if (identity != null) {
      return identity;
    }
    if (!TopicNames.isValid(m.targetTopic())) {
      return "target topic '" + Printable.excerpt(m.targetTopic()) + "'";
    }
    String badTarget = TopicManifestCodec.topicIdProblem(m.targetTopicId());
    if (badTarget != null) {
      return badTarget;
    }
    if (m.writtenAt() == null || m.writtenAt().toEpochMilli() < 0 || m.writtenAt().getNano() % 1_000_000 != 0) {
      return "time written '" + m.writtenAt() + "' (whole milliseconds since 1970)";
    }
    if (m.partitions() == null) {
      return "missing partitions";
    }
    for (var entry : m.partitions().entrySet()) {
      if (entry.getKey() == null || entry.getKey() < 0 || entry.getValue() == null) {
        return "partition " + entry.getKey() + " without a map";
      }
      String problem = entry.getValue().problem();
      if (problem != null) {
        return "partition " + entry.getKey() + ": " + problem;
      }
    }
    return null;
  }
}
