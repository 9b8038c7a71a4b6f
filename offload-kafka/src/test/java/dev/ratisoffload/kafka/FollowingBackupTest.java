package dev.ratisoffload.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.backup.BackupListener;
import dev.ratisoffload.kafka.backup.BackupProgress;
import dev.ratisoffload.kafka.backup.BackupSettings;
import dev.ratisoffload.kafka.backup.BackupSummary;
import dev.ratisoffload.kafka.backup.KafkaTopicBackup;
import dev.ratisoffload.kafka.format.TimestampKind;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.kafka.read.TopicIncarnation;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A following backup against a real broker and a directory store: outages, and a topic that grows. */
class FollowingBackupTest {

  @RegisterExtension
  static final KafkaBroker kafka = new KafkaBroker();
  private static final String CLUSTER = "live";
  private static final Duration DEADLINE = Duration.ofSeconds(90);

  private static void produce(Produced produced, String topic, int partition, int count, String tag) throws Exception {
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      records.add(new ProducerRecord<>(topic, partition, System.currentTimeMillis(),
          (tag + "-" + i).getBytes(StandardCharsets.UTF_8), ("value " + i).getBytes(StandardCharsets.UTF_8)));
    }
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(), Map.of())) {
      produced.send(producer, records, TimestampKind.CREATE_TIME);
    }
  }

  private static BackupSettings.Builder following(String topic) {
    return BackupSettings.builder(kafka.bootstrapServers(), topic, CLUSTER).follow(true)
        .segmentAge(Duration.ofSeconds(2)).brokerTimeout(Duration.ofSeconds(2))
        .progressInterval(Duration.ofMillis(100));
  }

  @Test
  void aBrokerOutageIsRetriedAndEveryRecordIsStoredOnce(@TempDir Path dir) throws Exception {
    kafka.createTopics(new NewTopic("beat", 1, (short) 1));
    Produced produced = new Produced();
    produce(produced, "beat", 0, 5, "a");
    try (ObjectStore store = TestStores.directory(dir);
        Follower follower = Follower.start(following("beat").build(), store)) {
      Await.until("the follower to read the records", DEADLINE, () -> follower.recordsRead >= 5);
      kafka.stop();
      try {
        Await.until("a retry", DEADLINE, () -> !follower.retries.isEmpty());
      } finally {
        kafka.restart();
      }
      produce(produced, "beat", 0, 5, "b");
      Await.until("every record stored", DEADLINE, () -> stored(store, "beat", 0) >= 10);
      assertEquals(BackupSummary.Ending.STOPPED, follower.stop().ending());
      assertEquals(produced.records(0), ChainContents.read(store, CLUSTER, "beat").records(0), "each record once");
      assertTrue(follower.retries.get(0).contains("trying again in 1 s"), follower.retries::toString);
    }
  }

  /** The backup looks at the topic every 30 s: a new partition is backed up from its start after that. */
  @Test
  void partitionsAddedWhileFollowingAreBackedUpAndTheManifestRecordsThem(@TempDir Path dir) throws Exception {
    kafka.createTopics(new NewTopic("spread", 1, (short) 1));
    Produced produced = new Produced();
    produce(produced, "spread", 0, 3, "a");
    try (ObjectStore store = TestStores.directory(dir);
        Follower follower = Follower.start(following("spread").topicRecheckInterval(Duration.ofSeconds(1)).build(),
            store)) {
      Await.until("partition 0 stored", DEADLINE, () -> stored(store, "spread", 0) == 3);
      try (Admin admin = kafka.admin()) {
        admin.createPartitions(Map.of("spread", NewPartitions.increaseTo(2))).all().get();
      }
      produce(produced, "spread", 1, 4, "b");
      Await.until("the added partition stored", DEADLINE, () -> stored(store, "spread", 1) == 4);
      follower.stop();
      assertEquals(produced.records(1), ChainContents.read(store, CLUSTER, "spread").records(1));
      TopicIncarnation incarnation = KafkaBackupCatalog.scan(store, CLUSTER, "spread").incarnations("spread").get(0);
      assertEquals(2, new SegmentSource(store).readManifest(incarnation.newestManifest().orElseThrow()).partitions(),
          "the newest manifest records the partition count");
    }
  }

  /** How many records the chain of a partition holds (0 before the backup stored anything). */
  private static int stored(ObjectStore store, String topic, int partition) {
    List<TopicIncarnation> incarnations = KafkaBackupCatalog.scan(store, CLUSTER, topic).incarnations(topic);
    return incarnations.isEmpty() ? 0 : ChainContents.read(store, incarnations.get(0)).records(partition).size();
  }

  /** A following backup on a thread of its own, with what its listener heard. */
  static final class Follower implements AutoCloseable, BackupListener {
    final List<String> retries = new CopyOnWriteArrayList<>();
    volatile long recordsRead;
    private final InBackground<BackupSummary> run;

    private Follower(BackupSettings settings, ObjectStore store) {
      KafkaTopicBackup backup = new KafkaTopicBackup(settings, store, this);
      this.run = InBackground.start("backup-follower", backup::run, backup::requestStop, DEADLINE);
    }

    static Follower start(BackupSettings settings, ObjectStore store) {
      return new Follower(settings, store);
    }

    @Override
    public void progress(BackupProgress progress) {
      recordsRead = Math.max(recordsRead, progress.recordsRead());
    }

    @Override
    public void retrying(String problem, Duration wait) {
      retries.add(problem + "; trying again in " + wait.toSeconds() + " s");
    }

    BackupSummary stop() throws InterruptedException {
      return run.stop();
    }

    @Override
    public void close() throws InterruptedException {
      run.close();
    }
  }
}
