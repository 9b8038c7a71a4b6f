package dev.ratisoffload.kafka.backup;

import dev.ratisoffload.store.ObjectStore;

/** A {@link KafkaBackup} of exactly one topic, for callers that want that topic's summary alone. */
public final class KafkaTopicBackup {

  private final KafkaBackup backup;

  /** @throws IllegalStateException when the settings choose more than one topic, or a pattern */
  public KafkaTopicBackup(BackupSettings settings, ObjectStore store, BackupListener listener) {
    settings.topic();
    this.backup = new KafkaBackup(settings, store, listener);
  }

  /** See {@link KafkaBackup#requestStop()}. */
  public void requestStop() {
    backup.requestStop();
  }

  /** See {@link KafkaBackup#run()}. */
  public BackupSummary run() {
    return backup.run().get(0);
  }
}
