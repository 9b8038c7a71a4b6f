package dev.ratisoffload.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ratisoffload.kafka.backup.BackupListener;
import dev.ratisoffload.kafka.backup.BackupProgress;
import dev.ratisoffload.kafka.backup.BackupSettings;
import dev.ratisoffload.kafka.backup.KafkaTopicBackup;
import dev.ratisoffload.kafka.format.GroupOffsetsSnapshot;
import dev.ratisoffload.kafka.format.GroupSelection;
import dev.ratisoffload.kafka.read.GroupOffsetsReader;
import dev.ratisoffload.kafka.restore.KafkaTopicRestore;
import dev.ratisoffload.kafka.restore.OffsetMode;
import dev.ratisoffload.kafka.restore.RestoreListener;
import dev.ratisoffload.kafka.restore.RestoreSettings;
import dev.ratisoffload.kafka.restore.RestoreSummary;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A drained standby commits the backed-up group offsets, renumbered ones through a map rebuilt from the chain. A following backup records the groups' offsets at its own interval and once more when stopped, each
 * capped at what the chain has stored; a snapshot that would repeat the last one is not stored.
 */
class GroupOffsetsFollowTest {

  @RegisterExtension
  static final KafkaBroker kafka = new KafkaBroker();
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final TopicPartition LIVE = new TopicPartition("live", 0);

  @Test
  void recordsAtItsIntervalAndAtAStopNeverBeyondTheStoredChain(@TempDir Path dir) throws Exception {
    kafka.createTopics(new NewTopic("live", 1, (short) 1));
    produce(5);
    commit("live-readers", 2);
    commit("far-ahead", 1000); // Kafka accepts a commit past the log end; the backup never records one
    ObjectStore store = TestStores.directory(dir);
    GroupOffsetsReader reader = new GroupOffsetsReader(store);
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try {
      KafkaTopicBackup often = follow(store, Duration.ofMillis(200), BackupListener.NONE);
      Future<?> running = thread.submit(often::run);
      Uuid topicId = Await.value("a snapshot with the stored chain's end", WAIT,
          () -> newest(store, reader).filter(s -> Map.of(0, 5L).equals(s.groups().get("far-ahead")))
              .map(s -> Uuid.fromString(s.topicId())));
      assertEquals(Map.of(0, 2L), newest(store, reader).orElseThrow().groups().get("live-readers"));
      commit("live-readers", 4);
      Await.until("the interval's snapshot of the new commit", WAIT, () -> newest(store, reader)
          .map(s -> Map.of(0, 4L).equals(s.groups().get("live-readers"))).orElse(false));
      int taken = reader.snapshots("prod", "live", topicId).size();
      often.requestStop();
      running.get();
      assertEquals(taken, reader.snapshots("prod", "live", topicId).size(), "unchanged offsets are not stored again");

      commit("live-readers", 3);
      CountDownLatch started = new CountDownLatch(1);
      KafkaTopicBackup rarely = follow(store, Duration.ofHours(1), new BackupListener() {
        @Override
        public void started(BackupProgress progress) {
          started.countDown();
        }
      });
      running = thread.submit(rarely::run);
      started.await();
      rarely.requestStop();
      running.get();
      assertEquals(Map.of(0, 3L), newest(store, reader).orElseThrow().groups().get("live-readers"),
          "recorded at the stop");
    } finally {
      thread.shutdownNow();
      store.close();
    }
  }

  @Test
  void aDrainedStandbyCommitsTheGroupsBeforeItIsPromoted(@TempDir Path dir) throws Exception {
    kafka.createTopics(new NewTopic("source", 1, (short) 1));
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(), Map.of())) {
      for (int i = 0; i < 6; i++) {
        producer.send(new ProducerRecord<>("source", 0, null, new byte[] {(byte) i})).get();
      }
    }
    commit("standby-readers", new TopicPartition("source", 0), 4);
    assertEquals(4, drainIntoStandby(dir, "source", "standby", OffsetMode.PRESERVE, "standby-readers"));
  }

  /** Transactions leave holes (markers, aborted records): the standby's offsets come from the rebuilt map. */
  @Test
  void aDrainedRenumberingStandbyTranslatesTheGroupsThroughTheChain(@TempDir Path dir) throws Exception {
    kafka.createTopics(new NewTopic("txn-source", 1, (short) 1));
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(),
        Map.of("transactional.id", "follow-test-writer"))) {
      producer.initTransactions();
      for (boolean commit : new boolean[] {true, false, true}) { // records 0-4, 12-16; aborted 6-10; markers
        producer.beginTransaction();
        for (int i = 0; i < 5; i++) {
          producer.send(new ProducerRecord<>("txn-source", 0, null, new byte[] {(byte) i}));
        }
        producer.flush();
        if (commit) {
          producer.commitTransaction();
        } else {
          producer.abortTransaction();
        }
      }
    }
    commit("renumbered-readers", new TopicPartition("txn-source", 0), 14); // read 0-4, 12, 13
    assertEquals(7, drainIntoStandby(dir, "txn-source", "txn-standby", OffsetMode.RENUMBER, "renumbered-readers"));
  }

  /** Backs the topic up, drains it into the standby with the group, and returns the group's offset there. */
  private static long drainIntoStandby(Path dir, String topic, String standby, OffsetMode mode, String group)
      throws Exception {
    try (ObjectStore store = TestStores.directory(dir)) {
      new KafkaTopicBackup(BackupSettings.builder(kafka.bootstrapServers(), topic, "prod").build(), store,
          BackupListener.NONE).run();
      RestoreSummary summary = new KafkaTopicRestore(RestoreSettings.builder(kafka.bootstrapServers(), "prod", topic)
          .targetTopic(standby).createTopic(true).follow(true).offsetMode(mode).pollInterval(Duration.ofMillis(100))
          .drainAfter(Duration.ofMillis(500)).consumerGroups(GroupSelection.of(List.of(group))).build(),
          store, RestoreListener.NONE).run();
      assertEquals(RestoreSummary.Ending.DRAINED, summary.ending());
    }
    try (Admin admin = kafka.admin()) {
      return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
          .get(new TopicPartition(standby, 0)).offset();
    }
  }

  private static KafkaTopicBackup follow(ObjectStore store, Duration interval, BackupListener listener) {
    return new KafkaTopicBackup(BackupSettings.builder(kafka.bootstrapServers(), "live", "prod").follow(true)
        .segmentAge(Duration.ofMillis(200)).groupOffsetsInterval(interval).build(), store, listener);
  }

  private static Optional<GroupOffsetsSnapshot> newest(ObjectStore store, GroupOffsetsReader reader) {
    return store.list("kafka/prod/live/").stream().map(o -> o.key().split("/")[3]).findFirst()
        .flatMap(id -> reader.newest("prod", "live", Uuid.fromString(id), Optional.empty())).map(reader::read);
  }

  private static void produce(int records) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(), Map.of())) {
      for (int i = 0; i < records; i++) {
        producer.send(new ProducerRecord<>("live", 0, null, new byte[] {(byte) i})).get();
      }
    }
  }

  private static void commit(String group, long offset) throws Exception {
    commit(group, LIVE, offset);
  }

  private static void commit(String group, TopicPartition partition, long offset) throws Exception {
    try (Admin admin = kafka.admin()) {
      admin.alterConsumerGroupOffsets(group, Map.of(partition, new OffsetAndMetadata(offset))).all().get();
    }
  }
}
