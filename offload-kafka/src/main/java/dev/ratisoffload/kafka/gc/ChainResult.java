package dev.ratisoffload.kafka.gc;

/**
 * What {@code kafka gc} did (or, in a dry run, would do) to one partition's chain.
 *
 * @param applied whether the removal was carried out (false in a dry run, or when refused)
 * @param removedSegments how many segments go from the start of the chain (0: nothing to remove)
 * @param removedFirst the first offset removed, or null when nothing is
 * @param removedLast the last offset removed, or null when nothing is
 * @param keptFirst the first offset the chain holds afterwards
 * @param keptLast the chain's last offset
 * @param refused why nothing was removed although the chain was looked at, or null
 */
public record ChainResult(String topic, String topicId, int partition, boolean applied, int removedSegments,
    Long removedFirst, Long removedLast, long removedBytes, long keptFirst, long keptLast, String refused) {

  public String describe() {
    return topic + "/" + partition + " (topic id " + topicId + ")";
  }
}
