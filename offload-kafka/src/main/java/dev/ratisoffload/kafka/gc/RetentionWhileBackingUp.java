package dev.ratisoffload.kafka.gc;

import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.PartitionChain;
import dev.ratisoffload.store.StoreException;
import java.util.function.Consumer;

/**
 * Applies a {@link ChainRetention} to a partition's chain each time the backup stores a segment of it
 * ({@code kafka backup --keep-within/--keep-bytes}), so the chain the backup writes stays within the
 * policy as it runs. A collection that refuses or fails is reported and the backup goes on: its chain is
 * intact either way, and the next stored segment tries again. The command line hooks it to the backup's
 * listener (the backup engine does not know about retention).
 */
public final class RetentionWhileBackingUp {

  private final ChainCollector collector;
  private final Consumer<String> warnings;

  public RetentionWhileBackingUp(ChainCollector collector, Consumer<String> warnings) {
    this.collector = collector;
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
      }
    } catch (StoreException | KafkaOffloadException e) {
      warnings.accept("retention of " + key.topic() + "/" + key.partition() + " failed, the chain is intact and"
          + " the next stored segment tries again: " + e.getMessage());
    }
  }
}
