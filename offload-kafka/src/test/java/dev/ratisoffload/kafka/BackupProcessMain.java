package dev.ratisoffload.kafka;

import dev.ratisoffload.kafka.backup.BackupListener;
import dev.ratisoffload.kafka.backup.BackupProgress;
import dev.ratisoffload.kafka.backup.BackupSettings;
import dev.ratisoffload.kafka.backup.BackupSummary;
import dev.ratisoffload.kafka.backup.KafkaTopicBackup;
import dev.ratisoffload.kafka.backup.StopSignals;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.format.SegmentHeader;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ObjectStore;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A backup in its own JVM, so tests can stop it with real signals (SIGTERM, SIGKILL). Stands in for
 * the {@code offload kafka backup} command; it prints STARTED, READ n and STORED key lines on standard
 * output, and exits 0 when the backup ends or is stopped, 2 with the kind of a failure on standard error.
 *
 * <p>Arguments: bootstrap topic cluster storeDir follow segmentBytes segmentAgeMillis
 */
public final class BackupProcessMain {

  public static void main(String[] args) {
    BackupSettings settings = BackupSettings.builder(args[0], args[1], args[2])
        .follow(Boolean.parseBoolean(args[4]))
        .segmentBytes(Long.parseLong(args[5]))
        .segmentAge(Duration.ofMillis(Long.parseLong(args[6])))
        .progressInterval(Duration.ofMillis(100))
        .build();
    int exit;
    try (ObjectStore store = new DirectoryObjectStore(Path.of(args[3]))) {
      KafkaTopicBackup backup = new KafkaTopicBackup(settings, store, new BackupListener() {
        @Override
        public void started(BackupProgress progress) {
          System.out.println("STARTED");
        }

        @Override
        public void progress(BackupProgress progress) {
          System.out.println("READ " + progress.recordsRead());
        }

        @Override
        public void segmentStored(SegmentKey key, SegmentHeader header) {
          System.out.println("STORED " + key.key());
        }
      });
      StopSignals.onTermOrInt(backup::requestStop).ifPresent(problem -> {
        throw new IllegalStateException(problem);
      });
      BackupSummary summary = backup.run();
      System.out.println("DONE " + summary.ending() + " " + summary.recordsStored());
      exit = 0;
    } catch (KafkaOffloadException e) {
      System.err.println(e.kind() + ": " + e.getMessage());
      exit = 2;
    } catch (Throwable t) {
      t.printStackTrace();
      exit = 1;
    }
    System.out.flush();
    System.exit(exit);
  }
}
