package dev.ratisoffload.kafka.backup;

import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.format.SegmentHeader;
import java.time.Duration;
import java.util.function.Consumer;

/** Hears what a backup does; called on the backup's thread, so implementations must be quick. */
public interface BackupListener {

  /** The partitions are assigned and positioned; records are about to be read. */
  default void started(BackupProgress progress) {}

  /** A segment was stored (its put and the second-writer check done), in chain order per partition. */
  default void segmentStored(SegmentKey key, SegmentHeader header) {}

  /**
   * The segments waiting to be stored and the open ones fill the memory budget: the backup reads
   * nothing until the store has taken some. Called once each time reading starts to wait.
   */
  default void waitingForStore(BackupProgress progress) {}

  /** Every progress interval, and once at the end. */
  default void progress(BackupProgress progress) {}

  /** Follow mode: the store or the cluster failed transiently; the backup starts again after {@code wait}. */
  default void retrying(String problem, Duration wait) {}

  BackupListener NONE = new BackupListener() {};

  /** This listener, and then {@code action} each time a segment is stored. */
  default BackupListener alsoOnSegmentStored(Consumer<SegmentKey> action) {
    BackupListener first = this;
    return new BackupListener() {
      @Override
      public void started(BackupProgress progress) {
        first.started(progress);
      }

      @Override
      public void segmentStored(SegmentKey key, SegmentHeader header) {
        first.segmentStored(key, header);
        action.accept(key);
      }

      @Override
      public void waitingForStore(BackupProgress progress) {
        first.waitingForStore(progress);
      }

      @Override
      public void progress(BackupProgress progress) {
        first.progress(progress);
      }
    };
  }
}
