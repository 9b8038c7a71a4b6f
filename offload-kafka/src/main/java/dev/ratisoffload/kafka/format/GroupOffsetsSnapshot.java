package dev.ratisoffload.kafka.format;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * The committed offsets of the consumer groups that read a topic incarnation, as a backup saw them at
 * {@code takenAt}. Each offset is the next one the group would read, never beyond what the backup had
 * stored when the snapshot was taken (a committed offset ahead of the backup is written as the stored
 * end). Immutable once stored; a newer snapshot is a new object.
 *
 * @param groups by group id, then by partition: the committed offset
 */
@JsonPropertyOrder({"format", "cluster", "topic", "topicId", "takenAt", "groups"})
public record GroupOffsetsSnapshot(
    int format,
    String cluster,
    String topic,
    String topicId,
    Instant takenAt,
    Map<String, Map<Integer, Long>> groups) {

  public static final int FORMAT_VERSION = 1;

  @JsonCreator
  public GroupOffsetsSnapshot(
      @JsonProperty(value = "format", required = true) int format,
      @JsonProperty(value = "cluster", required = true) String cluster,
      @JsonProperty(value = "topic", required = true) String topic,
      @JsonProperty(value = "topicId", required = true) String topicId,
      @JsonProperty(value = "takenAt", required = true) Instant takenAt,
      @JsonProperty(value = "groups", required = true) Map<String, Map<Integer, Long>> groups) {
    this.format = format;
    this.cluster = cluster;
    this.topic = topic;
    this.topicId = topicId;
    this.takenAt = takenAt;
    this.groups = groups == null ? null : sorted(groups);
  }

  private static Map<String, Map<Integer, Long>> sorted(Map<String, Map<Integer, Long>> groups) {
    Map<String, Map<Integer, Long>> copy = new TreeMap<>();
    groups.forEach((group, offsets) -> copy.put(group, offsets == null ? null : new TreeMap<>(offsets)));
    return copy;
  }

  /** Whether both hold the same offsets of the same groups (when they were taken aside). */
  public boolean sameOffsets(GroupOffsetsSnapshot other) {
    return other != null && groups.equals(other.groups);
  }
}
