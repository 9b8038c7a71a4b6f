package dev.ratisoffload.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.backup.BackupListener;
import dev.ratisoffload.kafka.backup.BackupSettings;
import dev.ratisoffload.kafka.backup.BackupSummary;
import dev.ratisoffload.kafka.backup.KafkaTopicBackup;
import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.TimestampKind;
import dev.ratisoffload.kafka.format.TopicManifest;
import dev.ratisoffload.kafka.read.BackupLister;
import dev.ratisoffload.kafka.read.ChainVerifier;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.ListReport;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.kafka.read.TopicIncarnation;
import dev.ratisoffload.kafka.read.VerifyReport;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.testkit.EmbeddedKafka;
import dev.ratisoffload.testkit.EmbeddedS3;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A one-shot backup of real topics, read back through the segment reader: every field of every record
 * identical to what the producer sent and the broker acknowledged, on both kinds of store.
 */
class TopicBackupRoundTripTest {

  private static final String MIXED = "mixed-records";
  private static final String APPENDED = ".log_append-time";
  private static EmbeddedKafka kafka;
  private static EmbeddedS3 s3;
  private static final Produced mixed = new Produced();
  private static final Produced appended = new Produced();

  @BeforeAll
  static void produce() throws Exception {
    kafka = EmbeddedKafka.start();
    s3 = EmbeddedS3.start();
    s3.createBucket("backups");
    kafka.createTopics(new NewTopic(MIXED, 3, (short) 1),
          new NewTopic(APPENDED, 2, (short) 1).configs(Map.of("message.timestamp.type", "LogAppendTime",
              "retention.ms", "604800000")));
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(), Map.of())) {
      mixed.send(producer, RecordShapes.of(MIXED, 3, new Random(1)), TimestampKind.CREATE_TIME);
      appended.send(producer, RecordShapes.of(APPENDED, 2, new Random(2)), TimestampKind.LOG_APPEND_TIME);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (s3 != null) {
      s3.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  private static BackupSummary backup(ObjectStore store, String topic) {
    BackupSettings settings = BackupSettings.builder(kafka.bootstrapServers(), topic, "prod-eu")
        .segmentBytes(8 * 1024).build();
    return new KafkaTopicBackup(settings, store, BackupListener.NONE).run();
  }

  @Test
  void directoryStore(@TempDir Path dir) throws Exception {
    try (ObjectStore store = TestStores.directory(Files.createDirectories(dir.resolve("store")))) {
      roundTrip(store);
    }
  }

  @Test
  void s3Store() throws Exception {
    try (ObjectStore store = TestStores.s3(s3, "backups/some/prefix")) {
      roundTrip(store);
    }
  }

  private void roundTrip(ObjectStore store) {
    BackupSummary mixedSummary = backup(store, MIXED);
    BackupSummary appendedSummary = backup(store, APPENDED);
    assertEquals(BackupSummary.Ending.CAUGHT_UP, mixedSummary.ending());
    assertEquals(mixed.count(), mixedSummary.recordsStored());
    assertEquals(appended.count(), appendedSummary.recordsStored());

    assertIdentical(store, MIXED, mixed, 3);
    assertIdentical(store, APPENDED, appended, 2);

    VerifyReport report = new ChainVerifier(store, 2).verify("prod-eu", Optional.empty());
    assertTrue(report.ok(), () -> report.allProblems().toString());
    assertEquals(2, report.topics().size());
    report.topics().forEach(t -> t.partitions().forEach(p -> assertEquals(0, p.holeOffsets())));

    ListReport list = new BackupLister(store, 4).list("prod-eu", Optional.empty());
    assertTrue(list.problems().isEmpty(), list.problems()::toString);
    ListReport.TopicListing mixedListing = list.topics().stream().filter(t -> t.topic().equals(MIXED)).findFirst()
        .orElseThrow();
    assertEquals(mixed.count(), mixedListing.records());
    assertEquals(3, mixedListing.partitionCount());
    long newest = 0;
    for (int p = 0; p < 3; p++) {
      newest = Math.max(newest, mixed.records(p).stream().mapToLong(BackupRecord::timestamp).max().orElseThrow());
    }
    assertEquals(Instant.ofEpochMilli(newest), mixedListing.newestRecord());

    TopicIncarnation incarnation = KafkaBackupCatalog.scan(store, "prod-eu", APPENDED).incarnations().get(0);
    TopicManifest manifest = new SegmentSource(store).readManifest(incarnation.newestManifest().orElseThrow());
    assertEquals("LogAppendTime", manifest.config("message.timestamp.type"));
    assertEquals("604800000", manifest.config("retention.ms"));
    assertTrue(manifest.topicConfigs().containsAll(List.of("message.timestamp.type", "retention.ms")),
        manifest.topicConfigs()::toString);
    assertEquals(2, manifest.partitions());
    assertEquals("read_committed", manifest.isolation());
  }

  private static void assertIdentical(ObjectStore store, String topic, Produced produced, int partitions) {
    ChainContents contents = ChainContents.read(store, "prod-eu", topic);
    for (int p = 0; p < partitions; p++) {
      List<BackupRecord> expected = produced.records(p);
      assertEquals(expected, contents.records(p), topic + "/" + p);
      assertTrue(contents.holes(p).isEmpty());
      contents.assertCovers(p, 0, expected.size());
      assertTrue(contents.segments().get(p) > 1, "several segments per partition");
    }
  }
}
