package dev.ratisoffload.kafka.read;

import dev.ratisoffload.kafka.format.KafkaLayout.ChainStartKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * The segments of one partition of one topic incarnation, in offset order, as their names describe them,
 * and the chain-start markers {@code kafka gc} left when it removed the chain's first segments.
 */
public record PartitionChain(String cluster, String topic, Uuid topicId, int partition, List<StoredSegment> segments,
    List<ChainStartKey> starts) {

  public PartitionChain {
    segments = segments.stream()
        .sorted(Comparator.comparingLong(StoredSegment::firstOffset).thenComparingLong(StoredSegment::lastOffset))
        .toList();
    starts = starts.stream().sorted(Comparator.comparingLong(ChainStartKey::firstOffset)).toList();
  }

  public PartitionChain(String cluster, String topic, Uuid topicId, int partition, List<StoredSegment> segments) {
    this(cluster, topic, topicId, partition, segments, List.of());
  }

  /** The newest chain-start marker: where gc last trimmed the chain to start; empty if it never did. */
  public Optional<ChainStartKey> trimmedStart() {
    return starts.isEmpty() ? Optional.empty() : Optional.of(starts.get(starts.size() - 1));
  }

  public Optional<StoredSegment> first() {
    return segments.isEmpty() ? Optional.empty() : Optional.of(segments.get(0));
  }

  public Optional<StoredSegment> last() {
    return segments.isEmpty() ? Optional.empty() : Optional.of(segments.get(segments.size() - 1));
  }

  /** The offset a backup continues at: one past the last segment's range. */
  public Optional<Long> nextOffset() {
    return last().map(s -> s.lastOffset() + 1);
  }

  long storedBytes() {
    return segments.stream().mapToLong(StoredSegment::size).sum();
  }

  /** Gaps and overlaps between consecutive segments, from their names alone. */
  public List<ChainBreak> breaks() {
    List<ChainBreak> breaks = new ArrayList<>();
    for (int i = 1; i < segments.size(); i++) {
      ChainBreak.between(segments.get(i - 1), segments.get(i)).ifPresent(breaks::add);
    }
    return breaks;
  }

  public String describe() {
    return topic + "/" + partition + " (topic id " + topicId + ")";
  }
}
