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
import dev.ratisoffload.store.ForwardingObjectStore;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreUri;
import dev.ratisoffload.store.Stores;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

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
      try (TimedStore store = new TimedStore(Stores.open(StoreUri.parse("s3://" + words[3] + "/kafka"),
          S3Settings.builder().endpoint(endpoint).pathStyle(true).build()))) {
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
            reply.put("storeSeconds", store.nanos.get() / 1e9);
          }
          case "restore" -> {
            RestoreSettings settings = RestoreSettings.builder(words[1], CLUSTER, words[2]).targetTopic(words[4])
                .offsetMode(OffsetMode.PRESERVE).build();
            long[] sending = new long[1];
            RestoreSummary summary = new KafkaTopicRestore(settings, store, new RestoreListener() {
              @Override
              public void sending(long records) {
                sending[0] = System.nanoTime();
              }
            }).run();
            reply.put("records", summary.records());
            reply.put("verifySeconds", (sending[0] - started) / 1e9);
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

  /**
   * The time requests to the store take, summed over the threads making them: the backup's own at the
   * start, then its store threads, which store segments while its consumer keeps reading. (A get is
   * counted until its stream opens, not while it is read.)
   */
  private static final class TimedStore extends ForwardingObjectStore {
    final AtomicLong nanos = new AtomicLong();

    TimedStore(ObjectStore delegate) {
      super(delegate);
    }

    @Override
    protected <T> T call(String key, Supplier<T> request) {
      long started = System.nanoTime();
      try {
        return request.get();
      } finally {
        nanos.addAndGet(System.nanoTime() - started);
      }
    }

  }
}
