package dev.ratisoffload.kafka.restore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.Produced;
import dev.ratisoffload.kafka.TestStores;
import dev.ratisoffload.kafka.TopicContents;
import dev.ratisoffload.kafka.backup.BackupListener;
import dev.ratisoffload.kafka.backup.BackupSettings;
import dev.ratisoffload.kafka.backup.BackupSummary;
import dev.ratisoffload.kafka.backup.KafkaTopicBackup;
import dev.ratisoffload.kafka.format.TimestampKind;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.testkit.Await;
import dev.ratisoffload.testkit.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a broker with Kafka's default {@code auto.create.topics.enable=true} (and {@code num.partitions=1}),
 * no client of a backup or a restore makes the broker create a topic by asking about it: a target that
 * does not exist yet is only ever examined through the admin client, which never creates one.
 */
class TopicAutoCreationTest {

  private static final int FOLLOW_STARTS = 8;
  private static final Produced produced = new Produced();
  private static EmbeddedKafka kafka;

  @BeforeAll
  static void source() throws Exception {
    kafka = EmbeddedKafka.start(Map.of("auto.create.topics.enable", "true", "num.partitions", "1"));
    kafka.createTopics(new NewTopic("orders", 2, (short) 1));
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      records.add(new ProducerRecord<>("orders", i % 2, System.currentTimeMillis(), null,
          ("order " + i).getBytes(StandardCharsets.UTF_8)));
    }
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(), Map.of())) {
      produced.send(producer, records, TimestampKind.CREATE_TIME);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void readingBackTheTargetsLastRecordNeverCreatesIt() {
    try (TargetTopic ghost = new TargetTopic(RestoreSettings.builder(kafka.bootstrapServers(), "any", "orders")
        .targetTopic("ghost").brokerTimeout(Duration.ofSeconds(2)).build())) {
      assertThrows(KafkaOffloadException.class, () -> ghost.lastRecord(0, 0, 1));
    }
    assertFalse(topics().contains("ghost"), "the consumer that reads a record back must not create the topic");
  }

  @Test
  void aOneShotRestoreCreatesItsTargetWithTheBackedUpPartitionsOrNotAtAll(@TempDir Path dir) throws Exception {
    try (ObjectStore store = TestStores.directory(dir)) {
      new KafkaTopicBackup(BackupSettings.builder(kafka.bootstrapServers(), "orders", "once").build(), store,
          BackupListener.NONE).run();
      KafkaOffloadException missing = assertThrows(KafkaOffloadException.class, () -> restore(store, "once",
          "absent", false, false));
      assertTrue(missing.getMessage().contains("does not exist"), missing::getMessage);
      assertFalse(topics().contains("absent"), "asking about a missing target must not create it");

      assertEquals(40, restore(store, "once", "restored", true, false).records());
      assertEquals(2, partitions("restored"));
    }
    assertThrows(KafkaOffloadException.class, () -> new KafkaTopicBackup(BackupSettings.builder(
        kafka.bootstrapServers(), "never-created", "once").build(), TestStores.directory(dir), BackupListener.NONE)
        .run());
    assertFalse(topics().contains("never-created"), "backing up a missing topic must not create it");
  }

  @Test
  void aFollowerStartedRightAfterAFollowingBackupCreatesItsTargetWithTheBackedUpPartitions(@TempDir Path dir)
      throws Exception {
    for (int run = 0; run < FOLLOW_STARTS; run++) {
      String cluster = "follow" + run;
      String standby = "standby" + run;
      try (ObjectStore store = TestStores.directory(Files.createDirectories(dir.resolve(cluster)))) {
        KafkaTopicBackup backup = new KafkaTopicBackup(BackupSettings.builder(kafka.bootstrapServers(), "orders",
            cluster).follow(true).segmentAge(Duration.ofMillis(200)).build(), store, BackupListener.NONE);
        CompletableFuture<BackupSummary> backingUp = CompletableFuture.supplyAsync(backup::run);
        try {
          Await.until("the backup's topic manifest", Duration.ofSeconds(30),
              () -> !KafkaBackupCatalog.scan(store, cluster, "orders").incarnations("orders").isEmpty());
          KafkaTopicRestore follower = new KafkaTopicRestore(RestoreSettings.builder(kafka.bootstrapServers(), cluster,
              "orders").targetTopic(standby).createTopic(true).follow(true).pollInterval(Duration.ofMillis(100))
              .brokerTimeout(Duration.ofSeconds(10)).build(), store, RestoreListener.NONE);
          CompletableFuture<RestoreSummary> following = CompletableFuture.supplyAsync(follower::run);
          try {
            Await.until(standby + " to hold every record", Duration.ofSeconds(60), () -> {
              if (following.isDone()) {
                following.join(); // a failure ends the wait with its message
              }
              return topics().contains(standby) && TopicContents.offsets(kafka.bootstrapServers(), standby, 2) == 40;
            });
          } finally {
            follower.requestStop();
          }
          assertEquals(40, following.get(30, TimeUnit.SECONDS).records(), "run " + run);
          assertEquals(2, partitions(standby), "run " + run);
        } finally {
          backup.requestStop();
          backingUp.get(30, TimeUnit.SECONDS);
        }
      }
    }
  }

  private static RestoreSummary restore(ObjectStore store, String cluster, String target, boolean create,
      boolean follow) {
    return new KafkaTopicRestore(RestoreSettings.builder(kafka.bootstrapServers(), cluster, "orders")
        .targetTopic(target).createTopic(create).follow(follow).brokerTimeout(Duration.ofSeconds(10)).build(), store,
        RestoreListener.NONE).run();
  }

  private static Set<String> topics() {
    try (Admin admin = kafka.admin()) {
      return admin.listTopics().names().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("cannot list the topics", e);
    }
  }

  private static int partitions(String topic) throws Exception {
    try (Admin admin = kafka.admin()) {
      return admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic)
          .partitions().size();
    }
  }
}
