package dev.ratisoffload.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.backup.BackupListener;
import dev.ratisoffload.kafka.backup.BackupProgress;
import dev.ratisoffload.kafka.backup.BackupSettings;
import dev.ratisoffload.kafka.backup.BackupSummary;
import dev.ratisoffload.kafka.backup.KafkaTopicBackup;
import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.SegmentEntry;
import dev.ratisoffload.kafka.read.ChainFollower;
import dev.ratisoffload.kafka.read.ChainVerifier;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.kafka.read.StoredSegment;
import dev.ratisoffload.kafka.read.TopicIncarnation;
import dev.ratisoffload.kafka.read.VerifyReport;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import java.util.Map;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Follow mode keeps the chain current (segments stored by age while records keep coming, read back by
 * a {@link ChainFollower}); a topic deleted and created again is refused as a continuation.
 */
class FollowAndRecreateTest {

  @RegisterExtension
  static final KafkaBroker kafka = new KafkaBroker();

  @Test
  void followingStoresRecordsProducedAfterItStartedAndAFollowerReadsThemInOrder(@TempDir Path dir)
      throws Exception {
    String topic = "live";
    kafka.createTopics(new NewTopic(topic, 1, (short) 1));
    Produced produced = new Produced();
    Random random = new Random(5);
    try (ObjectStore store = TestStores.directory(dir)) {
      CountDownLatch started = new CountDownLatch(1);
      KafkaTopicBackup backup = new KafkaTopicBackup(BackupSettings.builder(kafka.bootstrapServers(), topic, "c")
          .follow(true).segmentAge(Duration.ofMillis(300)).build(), store, new BackupListener() {
            @Override
            public void started(BackupProgress progress) {
              started.countDown();
            }
          });
      CompletableFuture<BackupSummary> running = CompletableFuture.supplyAsync(backup::run);
      assertTrue(started.await(30, TimeUnit.SECONDS), "the backup started");

      Uuid topicId;
      try (Admin admin = kafka.admin()) {
        topicId = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId();
      }
      ChainFollower follower = new ChainFollower(store, "c", topic, topicId, 0, Optional.empty());
      SegmentSource source = new SegmentSource(store);
      List<BackupRecord> followed = new ArrayList<>();
      for (int round = 1; round <= 3; round++) {
        InterruptedBackupTest.produce(kafka, topic, 1, 30, produced, random);
        Await.until("round " + round + " to be stored and followed", Duration.ofSeconds(30), () -> {
          for (StoredSegment segment : follower.poll()) {
            for (SegmentEntry e : source.readAll(segment)) {
              if (e instanceof BackupRecord r) {
                followed.add(r);
              }
            }
          }
          return followed.size() == produced.count();
        });
      }
      assertEquals(produced.records(0), followed);
      assertTrue(!running.isDone(), "still following");

      long stopAt = System.nanoTime();
      backup.requestStop();
      BackupSummary summary = running.get(5, TimeUnit.SECONDS);
      assertTrue(System.nanoTime() - stopAt < Duration.ofSeconds(2).toNanos());
      assertEquals(BackupSummary.Ending.STOPPED, summary.ending());
      assertTrue(summary.segmentsStored() >= 3, "stored by age while following");
    }
  }

  @Test
  void aTopicDeletedAndCreatedAgainIsRefusedAsAContinuation(@TempDir Path dir) throws Exception {
    String topic = "reborn";
    try (ObjectStore store = TestStores.directory(dir)) {
      Uuid first = create(topic);
      InterruptedBackupTest.produce(kafka, topic, 2, 20, new Produced(), new Random(1));
      backup(store, topic, false);

      try (Admin admin = kafka.admin()) {
        admin.deleteTopics(List.of(topic)).all().get();
      }
      Await.until("the topic to be gone", Duration.ofSeconds(30), () -> {
        try (Admin admin = kafka.admin()) {
          return !admin.listTopics().names().get().contains(topic);
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      });
      Uuid second = Await.value("the topic to be created again", Duration.ofSeconds(30), () -> {
        try {
          return Optional.of(create(topic));
        } catch (Exception e) {
          return Optional.empty(); // deletion still settling on the broker
        }
      });
      assertTrue(!first.equals(second));
      Produced again = new Produced();
      InterruptedBackupTest.produce(kafka, topic, 2, 5, again, new Random(2));
      List<String> keysBefore = store.list("").stream().map(ObjectInfo::key).toList();

      KafkaOffloadException refused = assertThrows(KafkaOffloadException.class, () -> backup(store, topic, false));

      assertEquals(KafkaOffloadException.Kind.REFUSED, refused.kind());
      String message = refused.getMessage();
      assertTrue(message.contains("deleted and created again") && message.contains(first.toString())
          && message.contains(second.toString()) && message.contains("--accept-recreated-topic"), message);
      assertEquals(keysBefore, store.list("").stream().map(ObjectInfo::key).toList(), "nothing was written");

      BackupSummary accepted = backup(store, topic, true);
      assertEquals(second.toString(), accepted.topicId());
      List<TopicIncarnation> incarnations = KafkaBackupCatalog.scan(store, "c", topic).incarnations();
      assertEquals(2, incarnations.size());
      TopicIncarnation newer = incarnations.stream().filter(i -> i.topicId().equals(second)).findFirst().orElseThrow();
      ChainContents contents = ChainContents.read(store, newer);
      for (int p = 0; p < 2; p++) {
        assertEquals(again.records(p), contents.records(p));
      }
      backup(store, topic, false); // continuing the new chain needs no flag
      VerifyReport report = new ChainVerifier(store, 2).verify("c", Optional.of(topic));
      assertTrue(report.ok(), () -> report.allProblems().toString());
      assertEquals(2, report.topics().size());
    }
  }

  @Test
  void recordsDeletedBeforeTheyWereBackedUpStopTheBackupWithoutAGap(@TempDir Path dir) throws Exception {
    String topic = "short-retention";
    try (ObjectStore store = TestStores.directory(dir)) {
      create(topic);
      InterruptedBackupTest.produce(kafka, topic, 2, 10, new Produced(), new Random(3));
      backup(store, topic, false);
      InterruptedBackupTest.produce(kafka, topic, 2, 10, new Produced(), new Random(4));
      try (Admin admin = kafka.admin()) {
        admin.deleteRecords(Map.of(new TopicPartition(topic, 1), RecordsToDelete.beforeOffset(15))).all().get();
      }
      List<String> keysBefore = store.list("").stream().map(ObjectInfo::key).toList();

      KafkaOffloadException e = assertThrows(KafkaOffloadException.class, () -> backup(store, topic, false));

      assertEquals(KafkaOffloadException.Kind.INCONSISTENT, e.kind());
      assertTrue(e.getMessage().contains("records 10-14 of " + topic + "/1 were deleted"), e.getMessage());
      assertTrue(e.getMessage().contains("intact up to offset 9"), e.getMessage());
      List<String> keysAfter = store.list("").stream().map(ObjectInfo::key).toList();
      assertTrue(keysAfter.containsAll(keysBefore));
      VerifyReport report = new ChainVerifier(store, 1).verify("c", Optional.of(topic));
      assertTrue(report.ok(), () -> report.allProblems().toString());
    }
  }

  @Test
  void aDamagedLastSegmentIsNotContinuedUntilRemoved(@TempDir Path dir) throws Exception {
    String topic = "damaged-tail";
    try (ObjectStore store = TestStores.directory(dir)) {
      create(topic);
      Produced produced = new Produced();
      InterruptedBackupTest.produce(kafka, topic, 2, 10, produced, new Random(3));
      backup(store, topic, false);
      StoredSegment last = KafkaBackupCatalog.scan(store, "c", topic).incarnations().get(0).partition(0).last()
          .orElseThrow();
      Path file = dir.resolve(last.key());
      byte[] bytes = java.nio.file.Files.readAllBytes(file);
      bytes[bytes.length - 3] ^= 1;
      file.toFile().setWritable(true);
      java.nio.file.Files.write(file, bytes);
      InterruptedBackupTest.produce(kafka, topic, 2, 5, produced, new Random(4));

      KafkaOffloadException e = assertThrows(KafkaOffloadException.class, () -> backup(store, topic, false));

      assertEquals(KafkaOffloadException.Kind.INCONSISTENT, e.kind());
      assertTrue(e.getMessage().contains("delete " + last.key()), e.getMessage());
      store.delete(last.key());
      backup(store, topic, false);
      ChainContents contents = ChainContents.read(store, "c", topic);
      for (int p = 0; p < 2; p++) {
        assertEquals(produced.records(p), contents.records(p));
      }
    }
  }

  private static Uuid create(String topic) throws Exception {
    kafka.createTopics(new NewTopic(topic, 2, (short) 1));
    try (Admin admin = kafka.admin()) {
      return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId();
    }
  }

  private static BackupSummary backup(ObjectStore store, String topic, boolean acceptRecreated) {
    return new KafkaTopicBackup(BackupSettings.builder(kafka.bootstrapServers(), topic, "c")
        .acceptRecreatedTopic(acceptRecreated).build(), store, BackupListener.NONE).run();
  }
}
