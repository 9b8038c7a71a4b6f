package dev.ratisoffload.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.backup.BackupListener;
import dev.ratisoffload.kafka.backup.BackupSettings;
import dev.ratisoffload.kafka.backup.KafkaTopicBackup;
import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.TimestampKind;
import dev.ratisoffload.kafka.restore.KafkaTopicRestore;
import dev.ratisoffload.kafka.restore.OffsetMode;
import dev.ratisoffload.kafka.restore.RestoreListener;
import dev.ratisoffload.kafka.restore.RestoreSettings;
import dev.ratisoffload.kafka.restore.RestoreSummary;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.testkit.EmbeddedS3;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.ObjectInfo;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One-shot restores into a real broker from backups in S3Proxy: every record shape round trips in both
 * offset modes, a second writer is caught, every refusal leaves the target untouched, and {@code until}
 * restores exactly a prefix.
 */
class KafkaRestoreTest {

  @RegisterExtension
  static final KafkaBroker kafka = new KafkaBroker();
  private static final String CLUSTER = "prod";
  private static EmbeddedS3 s3;
  private static ObjectStore store;
  private static final Produced shapes = new Produced();
  private static final Produced appended = new Produced();
  private static final List<BackupRecord> committed = new ArrayList<>();

  @BeforeAll
  static void backUp() throws Exception {
    s3 = EmbeddedS3.start();
    s3.createBucket("backups");
    store = TestStores.s3(s3, "backups/kafka");
    kafka.createTopics(new NewTopic("shapes", 3, (short) 1).configs(Map.of("retention.ms", "864000000")),
        new NewTopic("appended", 2, (short) 1).configs(Map.of("message.timestamp.type", "LogAppendTime")),
        new NewTopic("holed", 1, (short) 1));
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(), Map.of())) {
      shapes.send(producer, RecordShapes.of("shapes", 3, new Random(7)), TimestampKind.CREATE_TIME);
      appended.send(producer, RecordShapes.of("appended", 2, new Random(8)), TimestampKind.LOG_APPEND_TIME);
    }
    produceWithAbortedTransaction("holed");
    for (String topic : List.of("shapes", "appended", "holed")) {
      backup(topic);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (store != null) {
      store.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  static void backup(String topic) {
    new KafkaTopicBackup(BackupSettings.builder(kafka.bootstrapServers(), topic, CLUSTER).segmentBytes(4096).build(),
        store, BackupListener.NONE).run();
  }

  /** Five committed records, three aborted, five committed: holes for the aborted ones and the markers. */
  private static void produceWithAbortedTransaction(String topic) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(),
        Map.of("transactional.id", "restore-test-writer"))) {
      producer.initTransactions();
      for (boolean commit : new boolean[] {true, false, true}) {
        producer.beginTransaction();
        List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();
        List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> acks = new ArrayList<>();
        for (int i = 0; i < (commit ? 5 : 3); i++) {
          ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, 0, System.currentTimeMillis() - 1000 + i,
              ("k" + committed.size() + i).getBytes(StandardCharsets.UTF_8), ("v" + i).getBytes(StandardCharsets.UTF_8));
          sent.add(r);
          acks.add(producer.send(r));
        }
        producer.flush();
        if (commit) {
          producer.commitTransaction();
          for (int i = 0; i < sent.size(); i++) {
            var m = acks.get(i).get();
            committed.add(new BackupRecord(m.offset(), m.timestamp(), TimestampKind.CREATE_TIME, sent.get(i).key(),
                sent.get(i).value(), List.of()));
          }
        } else {
          producer.abortTransaction();
        }
      }
    }
  }

  private static RestoreSettings.Builder settings(String topic, String target) {
    return RestoreSettings.builder(kafka.bootstrapServers(), CLUSTER, topic).targetTopic(target);
  }

  private static RestoreSummary restore(RestoreSettings settings) {
    return restore(settings, RestoreListener.NONE);
  }

  private static RestoreSummary restore(RestoreSettings settings, RestoreListener listener) {
    return new KafkaTopicRestore(settings, store, listener).run();
  }

  @Test
  void everyRecordShapeRoundTripsAtItsOriginalOffset() {
    RestoreSummary summary = restore(settings("shapes", "shapes-preserved").createTopic(true).build());
    assertEquals(RestoreSummary.Ending.COMPLETE, summary.ending());
    assertEquals(shapes.count(), summary.records());
    Map<Integer, List<BackupRecord>> restored = TopicContents.read(kafka.bootstrapServers(), "shapes-preserved", 3);
    for (int p = 0; p < 3; p++) {
      assertEquals(shapes.records(p), restored.get(p), "partition " + p);
    }
    assertEquals("864000000", topicConfig("shapes-preserved").get("retention.ms").value(),
        "--create-topic applies the backed-up topic's configs");

    restore(settings("shapes", "shapes-renumbered").createTopic(true).offsetMode(OffsetMode.RENUMBER).build());
    Map<Integer, List<BackupRecord>> renumbered = TopicContents.read(kafka.bootstrapServers(), "shapes-renumbered", 3);
    for (int p = 0; p < 3; p++) {
      assertEquals(shapes.records(p), renumbered.get(p), "partition " + p + ": without holes, the same offsets");
    }
  }

  @Test
  void renumberingClosesTheHolesAndKeepsEveryField() {
    RestoreSummary summary = restore(settings("holed", "holed-renumbered").createTopic(true)
        .offsetMode(OffsetMode.RENUMBER).build());
    assertEquals(10, summary.records());
    assertTrue(summary.partitions().get(0).holeOffsetsSkipped() >= 4, summary::toString);
    List<BackupRecord> restored = TopicContents.read(kafka.bootstrapServers(), "holed-renumbered", 1).get(0);
    assertEquals(committed.size(), restored.size());
    for (int i = 0; i < committed.size(); i++) {
      BackupRecord c = committed.get(i);
      assertEquals(new BackupRecord(i, c.timestamp(), c.timestampKind(), c.key(), c.value(), c.headers()),
          restored.get(i));
    }
  }

  @Test
  void logAppendTimeRecordsKeepTheirTimestampsInACreatedTopic() {
    restore(settings("appended", "appended-restored").createTopic(true).build());
    assertEquals("CreateTime", topicConfig("appended-restored").get("message.timestamp.type").value());
    Map<Integer, List<BackupRecord>> restored = TopicContents.read(kafka.bootstrapServers(), "appended-restored", 2);
    for (int p = 0; p < 2; p++) {
      List<BackupRecord> expected = appended.records(p).stream().map(r -> new BackupRecord(r.offset(), r.timestamp(),
          TimestampKind.CREATE_TIME, r.key(), r.value(), r.headers())).toList();
      assertEquals(expected, restored.get(p));
    }
  }

  @Test
  void aSecondWriterOnThePartitionEndsTheRestoreNamingTheOffsets() throws Exception {
    kafka.createTopics(new NewTopic("bulk", 3, (short) 1), new NewTopic("bulk-contended", 3, (short) 1));
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int i = 0; i < 30_000; i++) {
      records.add(new ProducerRecord<>("bulk", i % 3, null, ("record " + i).getBytes(StandardCharsets.UTF_8)));
    }
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(), Map.of())) {
      new Produced().send(producer, records, TimestampKind.CREATE_TIME);
    }
    backup("bulk");
    AtomicBoolean wrote = new AtomicBoolean();
    RestoreListener intruder = new RestoreListener() {
      @Override
      public void segmentSent(int partition, long sent) {
        if (partition == 0 && wrote.compareAndSet(false, true)) {
          try (KafkaProducer<byte[], byte[]> other = Produced.producer(kafka.bootstrapServers(), Map.of())) {
            other.send(new ProducerRecord<>("bulk-contended", 0, null, "intruder".getBytes(StandardCharsets.UTF_8)))
                .get();
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        }
      }
    };
    KafkaOffloadException e = assertThrows(KafkaOffloadException.class,
        () -> restore(settings("bulk", "bulk-contended").build(), intruder));
    assertTrue(wrote.get());
    assertEquals(KafkaOffloadException.Kind.REFUSED, e.kind(), e::getMessage);
    assertTrue(e.getMessage().matches("after sending \\d+ records: target: sent for offset \\d+, the broker stored it"
        + " at bulk-contended/0 offset \\d+: another writer on the partition, or a record lost or written twice\\."
        + " Records sent before this may still be stored: delete the topic and create it again before restoring"
        + " again"), e::getMessage);
  }

  @Test
  void aTargetThatIsNotEmptyIsRefused() throws Exception {
    kafka.createTopics(new NewTopic("occupied", 3, (short) 1));
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(), Map.of())) {
      producer.send(new ProducerRecord<>("occupied", 2, null, "already here".getBytes(StandardCharsets.UTF_8))).get();
    }
    assertRefused("shapes", "occupied", 3, b -> { }, "partition 2 has high watermark 1");
    assertEquals(Map.of(0, 0L, 1, 0L, 2, 1L), TopicContents.highWatermarks(kafka.bootstrapServers(), "occupied", 3));
  }

  @Test
  void aTargetWithShorterRetentionIsRefused() throws Exception {
    kafka.createTopics(new NewTopic("short-lived", 3, (short) 1).configs(Map.of("retention.ms", "60000")));
    assertRefused("shapes", "short-lived", 3, b -> { }, "retention.ms=60000");
  }

  @Test
  void aTargetWithSmallerRetentionBytesIsRefused() throws Exception {
    kafka.createTopics(new NewTopic("small-store", 3, (short) 1).configs(Map.of("retention.bytes", "1000")));
    assertRefused("shapes", "small-store", 3, b -> { }, "retention.bytes=1000");
  }

  @Test
  void aLogAppendTimeTargetIsRefusedWhenOffsetsAndTimestampsArePreserved() throws Exception {
    kafka.createTopics(new NewTopic("stamped", 3, (short) 1).configs(Map.of("message.timestamp.type",
        "LogAppendTime")));
    assertRefused("shapes", "stamped", 3, b -> { }, "message.timestamp.type=LogAppendTime");
  }

  @Test
  void aTargetWithSmallerMaximumMessageSizeIsRefused() throws Exception {
    kafka.createTopics(new NewTopic("narrow", 3, (short) 1).configs(Map.of("max.message.bytes", "100000")));
    assertRefused("shapes", "narrow", 3, b -> { }, "max.message.bytes=100000");
  }

  @Test
  void aTargetWithAnotherPartitionCountIsRefused() throws Exception {
    kafka.createTopics(new NewTopic("too-few", 2, (short) 1));
    assertRefused("shapes", "too-few", 2, b -> { }, "has 2 partitions, the backup of topic shapes");
  }

  @Test
  void holesAreRefusedInPreserveModeNamingThem() throws Exception {
    kafka.createTopics(new NewTopic("holed-preserved", 1, (short) 1));
    KafkaOffloadException e = assertThrows(KafkaOffloadException.class,
        () -> restore(settings("holed", "holed-preserved").build()));
    assertEquals(KafkaOffloadException.Kind.INCONSISTENT, e.kind());
    long firstAborted = committed.get(4).offset() + 1;
    assertTrue(e.getMessage().contains("partition 0 offsets " + firstAborted + "-"), e::getMessage);
    assertTrue(e.getMessage().contains("--offsets renumber"), e::getMessage);
    assertEquals(0, TopicContents.offsets(kafka.bootstrapServers(), "holed-preserved", 1));
  }

  @Test
  void aBackupReadUncommittedIsRefusedUnlessAllowed() throws Exception {
    new KafkaTopicBackup(BackupSettings.builder(kafka.bootstrapServers(), "holed", "prod-dirty").readCommitted(false)
        .build(), store, BackupListener.NONE).run();
    KafkaOffloadException e = assertThrows(KafkaOffloadException.class, () -> restore(
        RestoreSettings.builder(kafka.bootstrapServers(), "prod-dirty", "holed").targetTopic("holed-dirty")
            .createTopic(true).offsetMode(OffsetMode.RENUMBER).build()));
    assertEquals(KafkaOffloadException.Kind.INCONSISTENT, e.kind());
    assertTrue(e.getMessage().contains("aborted transactions") && e.getMessage().contains("--allow-uncommitted"),
        e::getMessage);
    try (var admin = kafka.admin()) {
      assertTrue(!admin.listTopics().names().get().contains("holed-dirty"), "refused before creating the target");
    }

    RestoreSummary allowed = restore(RestoreSettings.builder(kafka.bootstrapServers(), "prod-dirty", "holed")
        .targetTopic("holed-dirty").createTopic(true).offsetMode(OffsetMode.RENUMBER).allowUncommitted(true).build());
    assertEquals(committed.size() + 3, allowed.records(), "the aborted records too");
  }

  @Test
  void recordsAreCompressedAsTheTargetSaysAndSizedAsTheBrokerChecksThem() throws Exception {
    kafka.createTopics(new NewTopic("bulky", 1, (short) 1), new NewTopic("noisy", 1, (short) 1),
        new NewTopic("bulky-gzip", 1, (short) 1).configs(Map.of("max.message.bytes", "100000",
            "compression.type", "gzip")),
        new NewTopic("bulky-plain", 1, (short) 1).configs(Map.of("max.message.bytes", "100000",
            "compression.type", "gzip")),
        new NewTopic("noisy-zstd", 1, (short) 1).configs(Map.of("max.message.bytes", "100000")));
    byte[] noise = new byte[200_000];
    new Random(3).nextBytes(noise);
    Produced bulky = new Produced();
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(), Map.of())) {
      bulky.send(producer, List.of(new ProducerRecord<>("bulky", 0, System.currentTimeMillis(), null,
          "a".repeat(200_000).getBytes(StandardCharsets.UTF_8))), TimestampKind.CREATE_TIME);
      new Produced().send(producer, List.of(new ProducerRecord<>("noisy", 0, null, noise)), TimestampKind.CREATE_TIME);
    }
    backup("bulky");
    backup("noisy");

    // 200 kB of one letter: far over max.message.bytes, far under it once gzip'd as the topic says.
    assertEquals(1, restore(settings("bulky", "bulky-gzip").build()).records());
    assertEquals(bulky.records(0), TopicContents.read(kafka.bootstrapServers(), "bulky-gzip", 1).get(0));

    assertRefused("bulky", "bulky-plain", 1, b -> b.compression("none"),
        "the record at offset 0 of partition 0 is 200");
    assertRefused("noisy", "noisy-zstd", 1, b -> b.compression("zstd"), "compressed with zstd): the broker would"
        + " refuse it");
  }

  @Test
  void untilRestoresExactlyTheRecordsAtOrBeforeTheTimePerPartition() throws Exception {
    kafka.createTopics(new NewTopic("timed", 2, (short) 1));
    long base = System.currentTimeMillis() - 86_400_000L;
    Produced timed = new Produced();
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      records.add(new ProducerRecord<>("timed", i % 2, base + i * 1000L, null, ("r" + i).getBytes(StandardCharsets.UTF_8)));
    }
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(), Map.of())) {
      timed.send(producer, records, TimestampKind.CREATE_TIME);
    }
    backup("timed");
    Instant until = Instant.ofEpochMilli(base + 40_000); // records 0..40: 21 on partition 0, 20 on partition 1
    RestoreSummary summary = restore(settings("timed", "timed-until").createTopic(true).until(until).build());
    Map<Integer, List<BackupRecord>> restored = TopicContents.read(kafka.bootstrapServers(), "timed-until", 2);
    for (int p = 0; p < 2; p++) {
      List<BackupRecord> expected = timed.records(p).stream().filter(r -> r.timestamp() <= until.toEpochMilli())
          .toList();
      assertEquals(p == 0 ? 21 : 20, expected.size());
      assertEquals(expected, restored.get(p), "partition " + p);
    }
    assertEquals(41, summary.records());
  }

  private void assertRefused(String topic, String target, int partitions, Consumer<RestoreSettings.Builder> more,
      String naming) {
    RestoreSettings.Builder builder = settings(topic, target);
    more.accept(builder);
    long before = TopicContents.offsets(kafka.bootstrapServers(), target, partitions);
    KafkaOffloadException e = assertThrows(KafkaOffloadException.class, () -> restore(builder.build()));
    assertEquals(KafkaOffloadException.Kind.REFUSED, e.kind(), e::getMessage);
    assertTrue(e.getMessage().contains(naming), e::getMessage);
    assertTrue(e.getMessage().endsWith("Nothing was written"), e::getMessage);
    assertEquals(before, TopicContents.offsets(kafka.bootstrapServers(), target, partitions), "nothing produced");
  }

  private static Config topicConfig(String topic) {
    try (var admin = kafka.admin()) {
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      return admin.describeConfigs(List.of(resource)).all().get().get(resource);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aCorruptSegmentIsFoundBeforeAnythingIsSent(@TempDir Path dir) throws Exception {
    kafka.createTopics(new NewTopic("shapes-damaged", 3, (short) 1));
    try (ObjectStore copy = TestStores.directory(Files.createDirectories(dir.resolve("store")))) {
      String last = null;
      for (ObjectInfo object : store.list("kafka/" + CLUSTER + "/shapes/")) {
        byte[] bytes;
        try (InputStream in = store.get(object.key())) {
          bytes = in.readAllBytes();
        }
        copy.putIfAbsent(object.key(), Content.of(bytes));
        last = object.key().endsWith(".segment") ? object.key() : last;
      }
      Path segment = dir.resolve("store").resolve(last);
      byte[] bytes = Files.readAllBytes(segment);
      bytes[bytes.length - 10] ^= 0x01;
      Files.write(segment, bytes);
      IntegrityException e = assertThrows(IntegrityException.class,
          () -> new KafkaTopicRestore(settings("shapes", "shapes-damaged").build(), copy, RestoreListener.NONE).run());
      assertTrue(e.getMessage().contains(last), e::getMessage);
    }
    assertEquals(0, TopicContents.offsets(kafka.bootstrapServers(), "shapes-damaged", 3), "nothing produced");
  }
}
