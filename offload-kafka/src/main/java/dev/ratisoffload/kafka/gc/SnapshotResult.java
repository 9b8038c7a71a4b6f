package dev.ratisoffload.kafka.gc;

import java.time.Instant;
import java.util.List;

/**
 * What {@code kafka gc} did (or, in a dry run, would do) to the consumer-group offset snapshots of one
 * topic incarnation.
 *
 * @param applied whether the removal was carried out (false in a dry run, or when refused)
 * @param removed when each removed snapshot was taken, oldest first (empty: nothing to remove)
 * @param kept how many snapshots stay
 * @param refused why nothing was removed although the snapshots were looked at, or null
 */
public record SnapshotResult(String topic, String topicId, boolean applied, List<Instant> removed, int kept,
    String refused) {

  public String describe() {
    return topic + " (topic id " + topicId + ") group offsets";
  }
}
