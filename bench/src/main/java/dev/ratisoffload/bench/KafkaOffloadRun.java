package dev.ratisoffload.bench;

import dev.ratisoffload.kafka.backup.BackupListener;
import dev.ratisoffload.kafka.backup.BackupSettings;
import dev.ratisoffload.kafka.backup.BackupSummary;
import dev.ratisoffload.kafka.backup.KafkaTopicBackup;
import dev.ratisoffload.kafka.restore.KafkaTopicRestore;
import dev.ratisoffload.kafka.restore.OffsetMode;
import dev.ratisoffload.kafka.restore.RestoreListener;
import dev.ratisoffload.kafka.restore.RestoreSettings;
import dev.ratisoffload.kafka.restore.RestoreSummary;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreUri;
import dev.ratisoffload.store.Stores;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Our side of the Kafka benchmarks, in its own JVM: the library behind {@code offload kafka backup} and
 * {@code offload kafka restore}, with their defaults, against the benchmark's S3 store.
 *
 * <p>Commands: {@code backup <bootstrap> <topic> <bucket>} (one-shot, into {@code s3://<bucket>/kafka},
 * cluster {@code bench}) and {@code restore <bootstrap> <topic> <bucket> <targetTopic>} (one-shot, offsets
 * preserved, verify pass first, into an existing empty topic).
 */
public final class KafkaOffloadRun {

  static final String CLUSTER = "bench";

  public static void main(String[] args) throws Exception {
    URI endpoint = URI.create(args[0]);
    ChildJvm.serve(words -> {
      Map<String, Object> reply = new LinkedHashMap<>();
      long cpuBefore = PublishPeer.processCpuNanos();
      long started = System.nanoTime();
      try (ObjectStore store = Stores.open(StoreUri.parse("s3://" + words[3] + "/kafka"),
          S3Settings.builder().endpoint(endpoint).pathStyle(true).build())) {
        switch (words[0]) {
          case "backup" -> {
            BackupSummary summary = new KafkaTopicBackup(BackupSettings.builder(words[1], words[2], CLUSTER).build(),
                store, BackupListener.NONE).run();
            if (summary.ending() != BackupSummary.Ending.CAUGHT_UP) {
              throw new IllegalStateException("the backup ended " + summary.ending());
            }
            reply.put("records", summary.recordsStored());
            reply.put("segments", summary.segmentsStored());
            reply.put("bytesStored", summary.partitions().stream()
                .mapToLong(BackupSummary.PartitionSummary::bytesStored).sum());
          }
          case "restore" -> {
            RestoreSettings settings = RestoreSettings.builder(words[1], CLUSTER, words[2]).targetTopic(words[4])
                .offsetMode(OffsetMode.PRESERVE).build();
            RestoreSummary summary = new KafkaTopicRestore(settings, store, RestoreListener.NONE).run();
            reply.put("records", summary.records());
          }
          default -> throw new IllegalArgumentException("unknown command " + words[0]);
        }
        reply.put("seconds", (System.nanoTime() - started) / 1e9);
        reply.put("cpuSeconds", (PublishPeer.processCpuNanos() - cpuBefore) / 1e9);
      }
      return reply;
    });
    System.exit(0);
  }
}
