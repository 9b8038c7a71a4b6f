package dev.ratisoffload.kafka.format;

import dev.ratisoffload.primitives.HashedJson;
import dev.ratisoffload.primitives.Printable;
import dev.ratisoffload.store.IntegrityException;
import java.util.Map;

/**
 * Writes and reads consumer-group offset snapshots in the form every manifest uses: a header line,
 * {@code ratis-offload-kafka-group-offsets 1 sha256=<hex>}, then a strict JSON body. A group id may
 * hold any character Kafka allows but control characters, which no real group uses and which would
 * reach an operator's terminal through {@code kafka list}.
 */
public final class GroupOffsetsCodec {

  static final String MAGIC = "ratis-offload-kafka-group-offsets";
  public static final int MAX_BYTES = 16 * 1024 * 1024;
  /** Longer group ids are refused: Kafka's own tools never make one, and each is printed in full. */
  static final int MAX_GROUP_ID_LENGTH = 1024;

  private GroupOffsetsCodec() {}

  public static byte[] encode(GroupOffsetsSnapshot snapshot) {
    String problem = problem(snapshot);
    if (problem != null) {
      throw new IllegalArgumentException("invalid group offset snapshot: " + problem);
    }
    return HashedJson.encode(MAGIC, GroupOffsetsSnapshot.FORMAT_VERSION, snapshot);
  }

  /** Parses and checks a snapshot read from {@code key}; throws {@link IntegrityException} if invalid. */
  public static GroupOffsetsSnapshot decode(byte[] object, KafkaLayout.GroupOffsetsKey key) {
    GroupOffsetsSnapshot snapshot;
    try {
      snapshot = HashedJson.decode(object, MAGIC, GroupOffsetsSnapshot.FORMAT_VERSION, MAX_BYTES,
          GroupOffsetsSnapshot.class);
    } catch (HashedJson.Defect defect) {
      throw corrupt(key, defect.getMessage());
    }
    String problem = problem(snapshot);
    if (problem == null && !(snapshot.cluster().equals(key.cluster()) && snapshot.topic().equals(key.topic())
        && snapshot.topicId().equals(key.topicId().toString())
        && snapshot.takenAt().toEpochMilli() == key.takenAtMillis())) {
      problem = "it describes cluster " + snapshot.cluster() + " topic " + snapshot.topic() + " id "
          + snapshot.topicId() + " at " + snapshot.takenAt() + ", not what its key names";
    }
    if (problem != null) {
      throw corrupt(key, problem);
    }
    return snapshot;
  }

  private static IntegrityException corrupt(KafkaLayout.GroupOffsetsKey key, String problem) {
    return new IntegrityException("consumer-group offset snapshot " + key.key() + " is corrupt: " + problem
        + ". Restore with an older snapshot (--until) or without --consumer-groups; `offload kafka verify` checks"
        + " the records");
  }

  static String problem(GroupOffsetsSnapshot s) {
    String identity = TopicManifestCodec.incarnationProblem(s.format(), GroupOffsetsSnapshot.FORMAT_VERSION,
        s.cluster(), s.topic(), s.topicId());
    if (identity != null) {
      return identity;
    }
    if (s.takenAt() == null || s.takenAt().toEpochMilli() < 0 || s.takenAt().getNano() % 1_000_000 != 0) {
      return "time taken '" + s.takenAt() + "' (whole milliseconds since 1970)";
    }
    if (s.groups() == null) {
      return "missing groups";
    }
    for (Map.Entry<String, Map<Integer, Long>> group : s.groups().entrySet()) {
      String groupProblem = groupIdProblem(group.getKey());
      if (groupProblem != null) {
        return groupProblem;
      }
      if (group.getValue() == null || group.getValue().isEmpty()) {
        return "group '" + group.getKey() + "' without offsets";
      }
      for (Map.Entry<Integer, Long> offset : group.getValue().entrySet()) {
        if (offset.getKey() == null || offset.getKey() < 0 || offset.getValue() == null || offset.getValue() < 0) {
          return "group '" + group.getKey() + "' has partition " + offset.getKey() + " at offset " + offset.getValue();
        }
      }
    }
    return null;
  }

  /** What is wrong with a group id in a snapshot; null if nothing. */
  public static String groupIdProblem(String group) {
    if (group == null || group.isEmpty() || group.length() > MAX_GROUP_ID_LENGTH) {
      return "group id '" + Printable.excerpt(group) + "' (1 to " + MAX_GROUP_ID_LENGTH + " characters)";
    }
    if (group.chars().anyMatch(Character::isISOControl)) {
      return "group id '" + Printable.excerpt(group) + "' holds control characters";
    }
    return null;
  }
}
