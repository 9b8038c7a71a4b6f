package dev.ratisoffload.kafka.restore;

import java.util.List;

/**
 * What a restore did.
 *
 * @param ending COMPLETE (one-shot: every record stored and the high watermarks checked) or STOPPED (follow mode)
 * @param partitions per partition, in order
 * @param seconds how long it ran
 */
public record RestoreSummary(String topic, String topicId, String targetTopic, String offsets, Ending ending,
    List<PartitionSummary> partitions, double seconds) {

  public enum Ending { COMPLETE, STOPPED }

  /**
   * @param recordsRestored records this run stored
   * @param holeOffsetsSkipped offsets without a record the run passed over (renumber mode)
   * @param nextOffset the target partition's high watermark when the run ended
   */
  public record PartitionSummary(int partition, long recordsRestored, long holeOffsetsSkipped, long nextOffset) {}

  public long records() {
    return partitions.stream().mapToLong(PartitionSummary::recordsRestored).sum();
  }
}
