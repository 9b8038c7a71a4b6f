package dev.ratisoffload.kafka.format;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a restore wrote each backed-up offset of an incarnation into one target topic (by its id):
 * per partition, runs of consecutive source offsets written to consecutive target offsets. A restore
 * that renumbers writes the backup's records one after the other, so a run ends only at a hole of the
 * backup: a map is as small as the backup's holes are few.
 *
 * <p>It translates a committed offset (the next offset a group reads) to the target offset of the
 * first restored record at or after it, and anything past the last restored record to the target's
 * end: a consumer resumes at the same record it would have read next on the source.
 */
@JsonPropertyOrder({"format", "cluster", "topic", "topicId", "targetTopic", "targetTopicId", "writtenAt",
    "partitions"})
public record OffsetMap(
    int format,
    String cluster,
    String topic,
    String topicId,
    String targetTopic,
    String targetTopicId,
    Instant writtenAt,
    Map<Integer, PartitionMap> partitions) {

  public static final int FORMAT_VERSION = 1;

  @JsonCreator
  public OffsetMap(
      @JsonProperty(value = "format", required = true) int format,
      @JsonProperty(value = "cluster", required = true) String cluster,
      @JsonProperty(value = "topic", required = true) String topic,
      @JsonProperty(value = "topicId", required = true) String topicId,
      @JsonProperty(value = "targetTopic", required = true) String targetTopic,
      @JsonProperty(value = "targetTopicId", required = true) String targetTopicId,
      @JsonProperty(value = "writtenAt", required = true) Instant writtenAt,
      @JsonProperty(value = "partitions", required = true) Map<Integer, PartitionMap> partitions) {
    this.format = format;
    this.cluster = cluster;
    this.topic = topic;
    this.topicId = topicId;
    this.targetTopic = targetTopic;
    this.targetTopicId = targetTopicId;
    this.writtenAt = writtenAt;
    this.partitions = partitions == null ? null : new TreeMap<>(partitions);
  }

  /**
   * One partition's map.
   *
   * @param runs {@code [source offset, target offset, length]}: the {@code length} records from the source
   *     offset on were written from the target offset on; in increasing order of both offsets
   * @param sourceEnd one past the last source offset the restore covered
   * @param targetEnd one past the last target offset it wrote: where a committed offset beyond the restored
   *     records lands
   */
  @JsonPropertyOrder({"runs", "sourceEnd", "targetEnd"})
  public record PartitionMap(List<long[]> runs, long sourceEnd, long targetEnd) {

    @JsonCreator
    public PartitionMap(
        @JsonProperty(value = "runs", required = true) List<long[]> runs,
        @JsonProperty(value = "sourceEnd", required = true) long sourceEnd,
        @JsonProperty(value = "targetEnd", required = true) long targetEnd) {
      this.runs = runs == null ? null : List.copyOf(runs);
      this.sourceEnd = sourceEnd;
      this.targetEnd = targetEnd;
    }

    /** The target offset at which a group that committed {@code committed} on the source reads on. */
    public long translate(long committed) {
      int low = 0;
      int high = runs.size() - 1;
      int found = -1;
      while (low <= high) { // the first run that ends after the committed offset
        int mid = (low + high) >>> 1;
        long[] run = runs.get(mid);
        if (run[0] + run[2] > committed) {
          found = mid;
          high = mid - 1;
        } else {
          low = mid + 1;
        }
      }
      if (found < 0) {
        return targetEnd;
      }
      long[] run = runs.get(found);
      return committed <= run[0] ? run[1] : run[1] + (committed - run[0]);
    }

    /** What is wrong with this map; null if nothing. */
    String problem() {
      if (runs == null) {
        return "missing runs";
      }
      long sourceNext = 0;
      long targetNext = 0;
      for (int i = 0; i < runs.size(); i++) {
        long[] run = runs.get(i);
        if (run == null || run.length != 3 || run[0] < 0 || run[1] < 0 || run[2] < 1
            || run[0] > Long.MAX_VALUE - run[2] || run[1] > Long.MAX_VALUE - run[2]) {
          return "run " + i + " is not [source offset, target offset, length >= 1]";
        }
        if (i > 0 && (run[0] < sourceNext || run[1] < targetNext || run[0] == sourceNext && run[1] == targetNext)) {
          return "run " + i + " overlaps or continues run " + (i - 1) + " (runs are ordered, disjoint and merged)";
        }
        sourceNext = run[0] + run[2];
        targetNext = run[1] + run[2];
      }
      if (sourceEnd < sourceNext || targetEnd < targetNext || !runs.isEmpty() && targetEnd != targetNext) {
        return "ends " + sourceEnd + "/" + targetEnd + " do not follow the last run";
      }
      return null;
    }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof PartitionMap other) || sourceEnd != other.sourceEnd || targetEnd != other.targetEnd
          || runs.size() != other.runs.size()) {
        return false;
      }
      for (int i = 0; i < runs.size(); i++) {
        if (!java.util.Arrays.equals(runs.get(i), other.runs.get(i))) {
          return false;
        }
      }
      return true;
    }

    @Override
    public int hashCode() {
      return Long.hashCode(sourceEnd) * 31 + Long.hashCode(targetEnd) * 17 + runs.size();
    }

    @Override
    public String toString() {
      StringBuilder text = new StringBuilder("PartitionMap[");
      runs.forEach(run -> text.append(java.util.Arrays.toString(run)));
      return text.append(" -> ").append(sourceEnd).append('/').append(targetEnd).append(']').toString();
    }
  }

  /** Builds one partition's map from the records in the order they were written. */
  public static final class Builder {
    private final List<long[]> runs = new ArrayList<>();
    private long[] last;
    private long sourceNext;
    private long targetNext;

    /** A map whose first record, if any, goes to {@code targetStart}. */
    public Builder(long targetStart) {
      this.targetNext = targetStart;
    }

    /** The record backed up at {@code source} was written at {@code target}. */
    public void add(long source, long target) {
      add(source, target, 1);
    }

    /** The {@code length} records backed up from {@code source} on were written from {@code target} on. */
    public void add(long source, long target, long length) {
      if (length < 1 || last != null && (source < sourceNext || target < targetNext)) {
        throw new IllegalArgumentException("offsets go back: " + source + " -> " + target + " (" + length
            + ") after " + (sourceNext - 1) + " -> " + (targetNext - 1));
      }
      if (last != null && source == sourceNext && target == targetNext) {
        last[2] += length;
      } else {
        last = new long[] {source, target, length};
        runs.add(last);
      }
      sourceNext = source + length;
      targetNext = target + length;
    }

    /** The map, covering the source up to {@code sourceEnd} (exclusive). */
    public PartitionMap build(long sourceEnd) {
      List<long[]> copy = runs.stream().map(long[]::clone).toList();
      return new PartitionMap(copy, Math.max(sourceEnd, sourceNext), targetNext);
    }
  }
}
