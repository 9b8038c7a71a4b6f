package dev.ratisoffload.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.backup.BackupListener;
import dev.ratisoffload.kafka.backup.BackupSettings;
import dev.ratisoffload.kafka.backup.BackupSummary;
import dev.ratisoffload.kafka.backup.KafkaTopicBackup;
import dev.ratisoffload.kafka.format.TimestampKind;
import dev.ratisoffload.kafka.read.ChainVerifier;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.VerifyReport;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backup killed (SIGKILL) or stopped (SIGTERM) mid-way and started again stores the same records as
 * an uninterrupted backup: every record once, no gap. The backup runs in its own JVM so the signals
 * are real.
 */
class InterruptedBackupTest {

  @RegisterExtension
  static final KafkaBroker kafka = new KafkaBroker();

  @Test
  void killedMidwayThenRunAgainStoresEveryRecordOnce(@TempDir Path dir) throws Exception {
    String topic = "orders";
    createTopic(topic, 3);
    Produced produced = new Produced();
    produce(topic, 3, 1200, produced, new Random(7));
    Path storeDir = Files.createDirectories(dir.resolve("store"));

    try (ChildProcess child = ChildProcess.start(dir, BackupProcessMain.class, kafka.bootstrapServers(), topic,
        "interrupted", storeDir.toString(), "false", "4096", "60000")) {
      Await.until("the backup to store 20 segments", Duration.ofSeconds(60),
          () -> child.output().lines().filter(l -> l.startsWith("STORED ")).count() >= 20);
      assertTrue(child.process().isAlive(), "the backup ended before it could be killed:\n" + child.output());
      child.process().destroyForcibly(); // SIGKILL
      assertTrue(child.process().waitFor(10, TimeUnit.SECONDS));
      assertEquals(137, child.process().exitValue());
    }

    try (ObjectStore store = TestStores.directory(storeDir)) {
      long storedBefore = KafkaBackupCatalog.scan(store, "interrupted", topic).incarnations().get(0).partitions()
          .values().stream().mapToLong(c -> c.segments().size()).sum();
      assertTrue(storedBefore >= 20, storedBefore + " segments stored before the kill");

      BackupSummary resumed = backup(store, topic, "interrupted", false, 4096);
      assertEquals(BackupSummary.Ending.CAUGHT_UP, resumed.ending());
      assertTrue(resumed.recordsStored() > 0, "the backup was killed before it finished");
      assertTrue(resumed.recordsStored() < produced.count(), "the second run continued, it did not start over");

      backup(store, topic, "uninterrupted", false, 4096);
      assertSameRecordsOnce(store, topic, produced, 3);
    }
  }

  @Test
  void stoppedWhileFollowingStoresTheOpenSegmentExitsZeroAndResumes(@TempDir Path dir) throws Exception {
    String topic = "clicks";
    createTopic(topic, 2);
    Produced produced = new Produced();
    Random random = new Random(11);
    produce(topic, 2, 100, produced, random);
    Path storeDir = Files.createDirectories(dir.resolve("store"));

    try (ChildProcess child = ChildProcess.start(dir, BackupProcessMain.class, kafka.bootstrapServers(), topic,
        "interrupted", storeDir.toString(), "true", String.valueOf(16 * 1024 * 1024), "600000")) {
      Await.until("the backup to start following", Duration.ofSeconds(60), () -> child.printed("STARTED"));
      produce(topic, 2, 100, produced, random); // produced after the backup started
      Await.until("the backup to read every record", Duration.ofSeconds(30),
          () -> child.printed("READ " + produced.count()));
      assertTrue(!child.output().contains("STORED "), "segments are young: nothing is stored before the signal");

      long signalled = System.nanoTime();
      child.process().destroy(); // SIGTERM
      assertTrue(child.process().waitFor(10, TimeUnit.SECONDS), child::output);
      long millis = (System.nanoTime() - signalled) / 1_000_000;
      assertEquals(0, child.process().exitValue(), child::output);
      System.out.println("stopped in " + millis + " ms after SIGTERM");
      assertTrue(millis < 2000, "stopped in " + millis + " ms");
      assertTrue(child.printed("DONE STOPPED " + produced.count()), child::output);
    }

    produce(topic, 2, 50, produced, random);
    try (ObjectStore store = TestStores.directory(storeDir)) {
      BackupSummary resumed = backup(store, topic, "interrupted", false, 16 * 1024 * 1024);
      assertEquals(100, resumed.recordsStored(), "only the records produced after the stop");
      backup(store, topic, "uninterrupted", false, 16 * 1024 * 1024);
      assertSameRecordsOnce(store, topic, produced, 2);
    }
  }

  /** Both chains hold exactly the produced records, every offset once, and verify accepts them. */
  private static void assertSameRecordsOnce(ObjectStore store, String topic, Produced produced, int partitions) {
    ChainContents interrupted = ChainContents.read(store, "interrupted", topic);
    ChainContents uninterrupted = ChainContents.read(store, "uninterrupted", topic);
    for (int p = 0; p < partitions; p++) {
      assertEquals(produced.records(p), interrupted.records(p), "partition " + p);
      interrupted.assertCovers(p, 0, produced.records(p).size());
      assertEquals(uninterrupted.entries().get(p), interrupted.entries().get(p));
    }
    for (String cluster : List.of("interrupted", "uninterrupted")) {
      VerifyReport report = new ChainVerifier(store, 2).verify(cluster, Optional.empty());
      assertTrue(report.ok(), () -> report.allProblems().toString());
    }
  }

  private static BackupSummary backup(ObjectStore store, String topic, String cluster, boolean follow,
      long segmentBytes) {
    BackupSettings settings = BackupSettings.builder(kafka.bootstrapServers(), topic, cluster)
        .follow(follow).segmentBytes(segmentBytes).build();
    return new KafkaTopicBackup(settings, store, BackupListener.NONE).run();
  }

  private static void createTopic(String topic, int partitions) throws Exception {
    kafka.createTopics(new NewTopic(topic, partitions, (short) 1));
  }

  static void produce(String topic, int partitions, int perPartition, Produced produced, Random random)
      throws Exception {
    produce(kafka, topic, partitions, perPartition, produced, random);
  }

  static void produce(KafkaBroker kafka, String topic, int partitions, int perPartition, Produced produced,
      Random random) throws Exception {
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int i = 0; i < perPartition; i++) {
      for (int p = 0; p < partitions; p++) {
        byte[] value = new byte[100 + random.nextInt(200)];
        random.nextBytes(value);
        RecordHeaders headers = new RecordHeaders();
        headers.add("seq", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
        records.add(new ProducerRecord<>(topic, p, null, ("k" + i).getBytes(StandardCharsets.UTF_8), value, headers));
      }
    }
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(), Map.of())) {
      produced.send(producer, records, TimestampKind.CREATE_TIME);
    }
  }
}
