package dev.ratisoffload.kafka.backup;

import java.util.List;

/** What a backup run stored, and why it ended. */
public record BackupSummary(String topic, String topicId, Ending ending, int manifestVersion,
    List<PartitionSummary> partitions) {

  public enum Ending {
    /** One-shot: every partition was stored up to where it ended when the backup started. */
    CAUGHT_UP,
    /** Stopped on request (SIGTERM while following); the open segments were stored first. */
    STOPPED
  }

  /**
   * @param nextOffset the offset the partition's chain continues at
   */
  public record PartitionSummary(int partition, int segmentsStored, long recordsStored, long holeOffsetsStored,
      long bytesStored, long nextOffset) {}

  public long recordsStored() {
    return partitions.stream().mapToLong(PartitionSummary::recordsStored).sum();
  }

  public int segmentsStored() {
    return partitions.stream().mapToInt(PartitionSummary::segmentsStored).sum();
  }
}
