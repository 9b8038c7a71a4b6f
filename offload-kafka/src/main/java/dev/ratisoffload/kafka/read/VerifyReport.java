package dev.ratisoffload.kafka.read;

import java.util.List;

/**
 * What {@link ChainVerifier} found: per topic incarnation and partition, what was proved intact, the
 * holes recorded (offsets the broker had no record for, which are not lost data), and every problem.
 */
public record VerifyReport(String cluster, List<TopicResult> topics, List<String> problems) {

  /** True when nothing is wrong anywhere. */
  public boolean ok() {
    return problemCount() == 0;
  }

  public int problemCount() {
    return problems.size() + topics.stream().mapToInt(TopicResult::problemCount).sum();
  }

  /** Every problem, each a full sentence naming its object. */
  public List<String> allProblems() {
    return java.util.stream.Stream.concat(problems.stream(),
        topics.stream().flatMap(t -> java.util.stream.Stream.concat(t.problems().stream(),
            t.partitions().stream().flatMap(p -> p.problems().stream())))).toList();
  }

  public record TopicResult(String topic, String topicId, int manifestVersions, Integer partitionCount,
      List<PartitionResult> partitions, List<String> problems) {

    public int problemCount() {
      return problems.size() + partitions.stream().mapToInt(p -> p.problems().size()).sum();
    }
  }

  /**
   * @param holes the hole ranges, merged across segments; at most {@link ChainVerifier#MAX_LISTED_HOLES}
   *     are listed ({@code holesListed} false when more exist; {@code holeOffsets} counts them all)
   */
  public record PartitionResult(int partition, int segments, int segmentsVerified, Long firstOffset,
      Long lastOffset, long records, long holeOffsets, List<OffsetRange> holes, boolean holesListed,
      long storedBytes, List<String> problems) {}
}
