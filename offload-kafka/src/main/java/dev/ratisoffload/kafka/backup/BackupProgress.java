package dev.ratisoffload.kafka.backup;

import java.time.Duration;
import java.util.List;

/**
 * A backup's state at one moment, per partition: what this run has read and stored, and how far behind
 * the partition's end it is.
 */
public record BackupProgress(String topic, String topicId, Duration elapsed, List<PartitionProgress> partitions) {

  /**
   * @param recordsRead records read by this run (stored or in the open segment)
   * @param bytesRead record bytes read by this run, before compression
   * @param storedUpTo the offset the stored chain continues at
   * @param position the next offset to read
   * @param lag offsets between the position and the partition's end, or -1 if not known yet
   */
  public record PartitionProgress(int partition, long recordsRead, long bytesRead, int segmentsStored,
      long storedUpTo, long position, long lag) {}

  public long recordsRead() {
    return partitions.stream().mapToLong(PartitionProgress::recordsRead).sum();
  }

  long bytesRead() {
    return partitions.stream().mapToLong(PartitionProgress::bytesRead).sum();
  }

  /** Total lag over partitions whose lag is known. */
  public long lag() {
    return partitions.stream().mapToLong(PartitionProgress::lag).filter(l -> l >= 0).sum();
  }
}
