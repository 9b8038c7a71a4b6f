package dev.ratisoffload.kafka.read;

import java.time.Instant;
import java.util.List;

/**
 * What {@link BackupLister} shows of a cluster's Kafka backups: per topic incarnation and partition,
 * the offsets covered, records, holes, bytes stored and the newest record's time. Built from a
 * listing and the segments' headers; {@code kafka verify} is what reads every byte.
 */
public record ListReport(String cluster, List<TopicListing> topics, List<String> problems) {

  /**
   * @param partitionCount from the newest manifest, or null if it is unreadable or missing
   * @param manifestWrittenAt when the newest manifest was written, or null
   * @param groupOffsetsTakenAt when the newest consumer-group offset snapshot was taken, or null if none is stored
   * @param consumerGroups the groups in that snapshot
   */
  public record TopicListing(String topic, String topicId, Integer partitionCount, int manifestVersions,
      Instant manifestWrittenAt, List<PartitionListing> partitions, long records, long storedBytes,
      Instant newestRecord, Instant groupOffsetsTakenAt, List<String> consumerGroups) {}

  /**
   * @param newestRecord the greatest record timestamp in the chain, or null when no record has one
   * @param breaks gaps and overlaps between segments, from their names
   * @param problems headers that could not be read
   * @param trimmedBelow where {@code kafka gc} last made the chain start (its offsets before are removed),
   *     or null when it never trimmed the chain
   */
  public record PartitionListing(int partition, int segments, long firstOffset, long lastOffset, long records,
      long holeOffsets, long storedBytes, Instant newestRecord, int breaks, List<String> problems,
      Long trimmedBelow) {}
}
