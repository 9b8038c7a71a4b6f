package dev.ratisoffload.kafka.gc;

import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.PartitionChain;
import dev.ratisoffload.store.StoreException;
import java.util.List;
import java.util.function.Consumer;

/**
 * Applies a {@link ChainRetention} to a partition's chain each time the backup stores a segment of it
 * ({@code kafka backup --keep-within/--keep-bytes}), so the chain the backup writes stays within the
 * policy as it runs. A collection that refuses or fails is reported and the backup goes on: its chain is
 * intact either way, and the next stored segment tries again. When the chain's window moved, the group
 * offset snapshots no kept chain needs go too ({@link SnapshotCollector}). The command line hooks it to
 * the backup's listener (the backup engine does not know about retention).
 */
public final class RetentionWhileBackingUp {

  private final ChainCollector collector;
  private final SnapshotCollector snapshots;
  private final Consumer<String> warnings;

  public RetentionWhileBackingUp(ChainCollector collector, Consumer<String> warnings) {
    this.collector = collector;
    this.snapshots = new SnapshotCollector(collector.source());
    this.warnings = warnings;
  }

  /** Trims the chain of the partition {@code key} was just stored in. */
  public void segmentStored(SegmentKey key) {
    try {
      KafkaBackupCatalog catalog = KafkaBackupCatalog.build(key.cluster(), collector.store().list(
          KafkaLayout.partitionPrefix(key.cluster(), key.topic(), key.topicId(), key.partition())));
      PartitionChain chain = catalog.incarnation(key.topic(), key.topicId()).orElseThrow()
          .partition(key.partition());
      ChainResult result = collector.collect(chain, catalog.strayKeys(), true);
      if (result.refused() != null) {
        warnings.accept("retention of " + result.describe() + " removed nothing: " + result.refused());
      } else if (result.applied()) {
        collectSnapshots(key, result);
      }
    } catch (StoreException | KafkaOffloadException e) {
      warnings.accept("retention of " + key.topic() + "/" + key.partition() + " failed, the chain is intact and"
          + " the next stored segment tries again: " + e.getMessage());
    }
  }

  /**
   * The chain's window moved: removes the group offset snapshots no kept chain needs. Only then is the
   * topic's tree listed (the other chains' windows start at their first segments).
   */
  private void collectSnapshots(SegmentKey key, ChainResult trimmed) {
    KafkaBackupCatalog topic = KafkaBackupCatalog.scan(collector.store(), key.cluster(), key.topic());
    topic.incarnation(key.topic(), key.topicId())
        .flatMap(incarnation -> snapshots.collect(incarnation, List.of(trimmed), topic.strayKeys(), true))
        .filter(result -> result.refused() != null)
        .ifPresent(result -> warnings.accept("retention of " + result.describe() + " removed nothing: "
            + result.refused()));
  }
}
