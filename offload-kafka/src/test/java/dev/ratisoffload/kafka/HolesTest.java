package dev.ratisoffload.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.backup.BackupListener;
import dev.ratisoffload.kafka.backup.BackupSettings;
import dev.ratisoffload.kafka.backup.BackupSummary;
import dev.ratisoffload.kafka.backup.KafkaTopicBackup;
import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.Hole;
import dev.ratisoffload.kafka.format.TimestampKind;
import dev.ratisoffload.kafka.read.ChainVerifier;
import dev.ratisoffload.kafka.read.OffsetRange;
import dev.ratisoffload.kafka.read.VerifyReport;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Offsets without a record: compaction, transaction markers and aborted records are stored as holes,
 * the chain still covers every offset, and verify accepts it and reports the holes.
 */
class HolesTest {

  @RegisterExtension
  static final KafkaBroker kafka = new KafkaBroker();

  @Test
  void aCompactedTopicBacksUpWithItsHoles(@TempDir Path dir) throws Exception {
    String topic = "compacted";
    kafka.createTopics(new NewTopic(topic, 1, (short) 1).configs(Map.of("cleanup.policy", "compact",
          "segment.ms", "100", "min.cleanable.dirty.ratio", "0.01", "min.compaction.lag.ms", "0")));
    Produced produced = new Produced();
    Map<String, Long> lastOffsetOfKey = new HashMap<>();
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(), Map.of())) {
      List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        byte[] value = i % 37 == 5 ? null : ("v" + i).getBytes(StandardCharsets.UTF_8);
        records.add(new ProducerRecord<>(topic, 0, bytes("k" + (i % 10)), value));
      }
      produced.send(producer, records, TimestampKind.CREATE_TIME);
      // The cleaner never touches the active segment: each probe adds a record, which rolls it.
      Await.until("the log cleaner to remove superseded records", Duration.ofSeconds(90), () -> {
        try {
          produced.send(producer, List.of(new ProducerRecord<>(topic, 0, bytes("tick"), bytes("t"))),
              TimestampKind.CREATE_TIME);
          return readAll(topic, 0, false).size() < 200;
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      });
    }
    for (BackupRecord r : produced.records(0)) {
      lastOffsetOfKey.put(new String(r.key(), StandardCharsets.UTF_8), r.offset());
    }
    long end = produced.records(0).get(produced.records(0).size() - 1).offset() + 1;

    try (ObjectStore store = TestStores.directory(dir)) {
      BackupSummary summary = backup(store, topic, "compaction", true);
      assertTrue(summary.partitions().get(0).holeOffsetsStored() > 0);

      ChainContents contents = ChainContents.read(store, "compaction", topic);
      contents.assertCovers(0, 0, end);
      assertFalse(contents.holes(0).isEmpty());
      Map<Long, BackupRecord> producedByOffset = new HashMap<>();
      produced.records(0).forEach(r -> producedByOffset.put(r.offset(), r));
      for (BackupRecord r : contents.records(0)) {
        assertEquals(producedByOffset.get(r.offset()), r, "record at offset " + r.offset());
      }
      List<Long> kept = contents.records(0).stream().map(BackupRecord::offset).toList();
      assertTrue(kept.containsAll(lastOffsetOfKey.values()), "the newest record of every key is kept");

      VerifyReport report = new ChainVerifier(store, 1).verify("compaction", Optional.empty());
      assertTrue(report.ok(), () -> report.allProblems().toString());
      VerifyReport.PartitionResult p0 = report.topics().get(0).partitions().get(0);
      long holeOffsets = contents.holes(0).stream().mapToLong(Hole::count).sum();
      assertEquals(holeOffsets, p0.holeOffsets());
      assertEquals(holeOffsets, p0.holes().stream().mapToLong(OffsetRange::count).sum());
      assertEquals(end - holeOffsets, p0.records());
    }
  }

  @Test
  void abortedTransactionsAndMarkersAreHoles(@TempDir Path dir) throws Exception {
    String topic = "payments";
    kafka.createTopics(new NewTopic(topic, 2, (short) 1));
    Produced committed = new Produced();
    Produced everything = new Produced();
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(),
        Map.of("transactional.id", "payments-writer"))) {
      producer.initTransactions();
      transaction(producer, topic, 5, true, committed, everything);
      transaction(producer, topic, 4, false, committed, everything);
      transaction(producer, topic, 3, true, committed, everything);
      transaction(producer, topic, 2, false, committed, everything); // the log ends with an abort
    }
    long end = 5 + 4 + 3 + 2 + 4; // records plus one marker per transaction, on each partition

    try (ObjectStore store = TestStores.directory(dir)) {
      backup(store, topic, "committed", true);
      ChainContents readCommitted = ChainContents.read(store, "committed", topic);
      for (int p = 0; p < 2; p++) {
        assertEquals(committed.records(p), readCommitted.records(p));
        readCommitted.assertCovers(p, 0, end);
        // 0-4 committed, 5 marker, 6-9 aborted, 10 marker, 11-13 committed, 14 marker, 15-16 aborted, 17 marker
        assertEquals(List.of(new Hole(5, 6), new Hole(14, 4)), readCommitted.holes(p));
      }

      backup(store, topic, "uncommitted", false);
      ChainContents readUncommitted = ChainContents.read(store, "uncommitted", topic);
      for (int p = 0; p < 2; p++) {
        assertEquals(everything.records(p), readUncommitted.records(p));
        readUncommitted.assertCovers(p, 0, end);
        assertEquals(4, readUncommitted.holes(p).size(), "one hole per transaction marker");
      }

      for (String cluster : List.of("committed", "uncommitted")) {
        VerifyReport report = new ChainVerifier(store, 2).verify(cluster, Optional.empty());
        assertTrue(report.ok(), () -> report.allProblems().toString());
      }
    }
  }

  private static void transaction(KafkaProducer<byte[], byte[]> producer, String topic, int perPartition,
      boolean commit, Produced committed, Produced everything) throws Exception {
    producer.beginTransaction();
    List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();
    List<Future<RecordMetadata>> acks = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      for (int i = 0; i < perPartition; i++) {
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, p, bytes("k" + i),
            bytes((commit ? "committed " : "aborted ") + i));
        sent.add(r);
        acks.add(producer.send(r));
      }
    }
    producer.flush();
    if (commit) {
      producer.commitTransaction();
    } else {
      producer.abortTransaction();
    }
    for (int i = 0; i < sent.size(); i++) {
      RecordMetadata m = acks.get(i).get();
      everything.add(sent.get(i), m, TimestampKind.CREATE_TIME);
      if (commit) {
        committed.add(sent.get(i), m, TimestampKind.CREATE_TIME);
      }
    }
  }

  private static BackupSummary backup(ObjectStore store, String topic, String cluster, boolean readCommitted) {
    BackupSettings settings = BackupSettings.builder(kafka.bootstrapServers(), topic, cluster)
        .readCommitted(readCommitted).segmentBytes(1024).build();
    return new KafkaTopicBackup(settings, store, BackupListener.NONE).run();
  }

  /** What a plain consumer reads from the start of a partition to its current end. */
  static List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int partition, boolean readCommitted) {
    Map<String, Object> config = Map.of("bootstrap.servers", kafka.bootstrapServers(),
        "isolation.level", readCommitted ? "read_committed" : "read_uncommitted");
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, partition);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (consumer.position(tp) < end) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("could not read " + tp + " to offset " + end);
        }
        consumer.poll(Duration.ofMillis(100)).records(tp).forEach(records::add);
      }
      return records;
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
