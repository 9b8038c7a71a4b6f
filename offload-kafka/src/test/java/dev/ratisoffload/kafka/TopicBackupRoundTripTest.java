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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
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
      mixed.send(producer, shapes(MIXED, 3, new Random(1)), TimestampKind.CREATE_TIME);
      appended.send(producer, shapes(APPENDED, 2, new Random(2)), TimestampKind.LOG_APPEND_TIME);
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

  /** Every shape a record can take, on every partition: null vs empty, binary, large, headers. */
  private static List<ProducerRecord<byte[], byte[]>> shapes(String topic, int partitions, Random random) {
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    long base = System.currentTimeMillis() - 3_600_000;
    for (int p = 0; p < partitions; p++) {
      for (int i = 0; i < 40; i++) {
        byte[] key = switch (i % 4) {
          case 0 -> null;
          case 1 -> new byte[0];
          case 2 -> ("key-" + i).getBytes(StandardCharsets.UTF_8);
          default -> randomBytes(random, 1 + random.nextInt(40));
        };
        byte[] value = switch (i % 5) {
          case 0 -> null;
          case 1 -> new byte[0];
          case 2 -> randomBytes(random, 1 + random.nextInt(3000));
          case 3 -> i == 13 ? randomBytes(random, 300_000) : new byte[] {0, -1, 0, 127, -128};
          default -> ("value " + i + " ✓").getBytes(StandardCharsets.UTF_8);
        };
        RecordHeaders headers = new RecordHeaders();
        if (i % 3 != 0) {
          headers.add("trace", "a".getBytes(StandardCharsets.UTF_8));
          headers.add("trace", "b".getBytes(StandardCharsets.UTF_8));
          headers.add("none", null);
          headers.add("empty", new byte[0]);
          headers.add("trace", "a".getBytes(StandardCharsets.UTF_8));
          headers.add("bin", randomBytes(random, 8));
        }
        // Create-time timestamps out of order, some old; the log-append topic replaces them.
        long timestamp = base - (i % 7) * 86_400_000L + i;
        records.add(new ProducerRecord<>(topic, p, timestamp, key, value, headers));
      }
    }
    return records;
  }

  private static byte[] randomBytes(Random random, int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
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
