package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratisoffload.testkit.Await;
import dev.ratisoffload.testkit.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntToLongFunction;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumer groups survive a restore: a group reads and commits part of a topic, the topic is backed up
 * and deleted, and after {@code kafka restore --consumer-groups} a consumer of the group resumes at
 * exactly the next record, preserving offsets and renumbering them (through the stored offset map, over
 * a transactional topic whose markers and aborted records are holes), and up to a point in time from
 * the snapshot taken before it. A group with members on the target is refused with exit 5 and keeps its
 * offsets. Real KRaft broker, directory store, the CLI end to end.
 */
class ConsumerGroupOffsetsTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static EmbeddedKafka kafka;

  @BeforeAll
  static void start() throws Exception {
    kafka = EmbeddedKafka.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void preservedOffsetsLetAGroupResumeAtTheNextRecord(@TempDir Path store) throws Exception {
    kafka.createTopics(new NewTopic("plain", 1, (short) 1));
    produce("plain", 10);
    assertEquals("value 3", readAndCommit("plain", "plain-readers", 4));
    readAndCommit("plain", "bystanders", 2);

    Cli.Result backup = Cli.run(backup(store, "plain"));
    assertEquals(0, backup.code(), backup::toString);
    Cli.Result list = Cli.run("kafka", "list", "--store", store.toUri().toString(), "--cluster", "k1");
    assertTrue(list.out().contains("consumer groups (offsets recorded ") && list.out().contains(
        "bystanders, plain-readers"), list::toString);
    JsonNode json = new ObjectMapper().readTree(Cli.run("kafka", "list", "--store", store.toUri().toString(),
        "--cluster", "k1", "--json").out());
    assertEquals("plain-readers", json.at("/topics/0/consumerGroups/1").asText(), json::toString);
    assertFalse(json.at("/topics/0/groupOffsetsTakenAt").isNull(), json::toString);

    deleteTopic("plain");
    Cli.Result restore = Cli.run(restore(store, "plain", "--create-topic", "--consumer-groups", "plain-readers"));
    assertEquals(0, restore.code(), restore::toString);
    assertTrue(restore.err().contains("consumer group plain-readers: committed {0=4}"), restore::toString);

    ConsumerRecord<byte[], byte[]> first = firstPolled("plain", "plain-readers");
    assertEquals(4, first.offset());
    assertEquals("value 4", text(first.value()));
    assertTrue(committed("bystanders", "plain").isEmpty(), "a group left out of --consumer-groups is not committed");
  }

  @Test
  void renumberedOffsetsAreTranslatedThroughTheStoredMap(@TempDir Path store) throws Exception {
    kafka.createTopics(new NewTopic("txn", 1, (short) 1));
    // offsets 0-4 records, 5 marker, 6-8 aborted, 9 marker, 10-14 records, 15 marker
    produceTransactions("txn", new boolean[] {true, false, true});
    assertEquals("t2-1", readAndCommit("txn", "txn-readers", 7)); // committed offset 12

    Cli.Result backup = Cli.run(backup(store, "txn"));
    assertEquals(0, backup.code(), backup::toString);
    deleteTopic("txn");
    Cli.Result restore = Cli.run(restore(store, "txn", "--create-topic", "--offsets", "renumber",
        "--consumer-groups", "txn-.*"));
    assertEquals(0, restore.code(), restore::toString);
    assertTrue(restore.err().contains("consumer group txn-readers: committed {0=7}"), restore::toString);
    try (Stream<Path> files = Files.walk(store)) {
      assertEquals(1, files.filter(p -> p.getFileName().toString().startsWith("offset-map-")).count());
    }

    ConsumerRecord<byte[], byte[]> first = firstPolled("txn", "txn-readers");
    assertEquals(7, first.offset(), "the 8th record, renumbered");
    assertEquals("t2-2", text(first.value()));

    Cli.Result verified = Cli.run("kafka", "verify", "--store", store.toUri().toString(), "--cluster", "k1");
    assertEquals(0, verified.code(), verified::toString);
    Path snapshot;
    try (Stream<Path> files = Files.walk(store)) {
      snapshot = files.filter(p -> p.toString().endsWith(".snapshot")).findFirst().orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(snapshot);
    bytes[bytes.length - 5] ^= 0x01;
    Files.write(snapshot, bytes);
    Cli.Result damaged = Cli.run("kafka", "verify", "--store", store.toUri().toString(), "--cluster", "k1");
    assertEquals(3, damaged.code(), damaged::toString);
    assertTrue(damaged.out().contains(snapshot.getFileName() + " is corrupt"), damaged::toString);
    Cli.Result refused = Cli.run(restore(store, "txn", "--target-topic", "txn-again", "--create-topic",
        "--offsets", "renumber", "--consumer-groups", "txn-readers"));
    assertEquals(3, refused.code(), refused::toString);
    try (Admin admin = kafka.admin()) {
      assertFalse(admin.listTopics().names().get().contains("txn-again"), "nothing was created");
    }
  }

  @Test
  void untilTakesTheNewestSnapshotAtOrBeforeTheCutCappedAtIt(@TempDir Path store) throws Exception {
    kafka.createTopics(new NewTopic("dated", 1, (short) 1));
    long now = System.currentTimeMillis();
    // records 0-5 an hour old, 6-9 twenty minutes ahead: --until now restores 0-5
    produce("dated", 10, i -> i < 6 ? now - 3_600_000 + i : now + 1_200_000 + i);
    readAndCommit("dated", "dated-readers", 3);
    readAndCommit("dated", "dated-ahead", 8);
    assertEquals(0, Cli.run(backup(store, "dated")).code());
    Instant until = Instant.now();
    Await.until("the clock to pass the cut", WAIT, () -> System.currentTimeMillis() > until.toEpochMilli());
    readAndCommit("dated", "dated-readers", 9); // recorded after the cut: not what --until restores
    assertEquals(0, Cli.run(backup(store, "dated")).code());

    deleteTopic("dated");
    Cli.Result restore = Cli.run(restore(store, "dated", "--create-topic", "--until", until.toString(),
        "--consumer-groups", "dated-.*"));
    assertEquals(0, restore.code(), restore::toString);
    assertTrue(restore.err().contains("consumer group dated-readers: committed {0=3}"), restore::toString);
    assertTrue(restore.err().contains("consumer group dated-ahead: committed {0=6}"), restore::toString);
    assertEquals("value 3", text(firstPolled("dated", "dated-readers").value()));
  }

  @Test
  void aGroupWithMembersOnTheTargetIsRefusedAndKeepsItsOffsets(@TempDir Path store) throws Exception {
    kafka.createTopics(new NewTopic("busy", 1, (short) 1));
    produce("busy", 6);
    readAndCommit("busy", "busy-readers", 3);
    Cli.Result backup = Cli.run(backup(store, "busy"));
    assertEquals(0, backup.code(), backup::toString);

    try (KafkaConsumer<byte[], byte[]> member = consumer("busy-readers")) {
      member.subscribe(List.of("busy"));
      Await.until("the member is assigned busy/0", WAIT, () -> {
        member.poll(Duration.ofMillis(200));
        return !member.assignment().isEmpty();
      });
      Cli.Result refused = Cli.run(restore(store, "busy", "--target-topic", "busy-copy", "--create-topic",
          "--consumer-groups", "busy-readers"));
      assertEquals(5, refused.code(), refused::toString);
      assertTrue(refused.err().contains("busy-readers (1 members)") && refused.err().contains(
          "Nothing was written"), refused::toString);
    }
    assertEquals(Map.of(new TopicPartition("busy", 0), 3L), committed("busy-readers", "busy"));
    assertTrue(committed("busy-readers", "busy-copy").isEmpty());
    try (Admin admin = kafka.admin()) {
      assertFalse(admin.listTopics().names().get().contains("busy-copy"), "refused before the target was created");
    }
  }

  private static String[] backup(Path store, String topic) {
    return new String[] {"kafka", "backup", "--bootstrap-server", kafka.bootstrapServers(), "--topic", topic,
        "--store", store.toUri().toString(), "--cluster", "k1", "--progress", "never"};
  }

  private static String[] restore(Path store, String topic, String... more) {
    List<String> args = new ArrayList<>(List.of("kafka", "restore", "--bootstrap-server", kafka.bootstrapServers(),
        "--topic", topic, "--store", store.toUri().toString(), "--cluster", "k1", "--progress", "never"));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  private static void produce(String topic, int records) throws Exception {
    produce(topic, records, i -> System.currentTimeMillis());
  }

  /** Records "value 0", "value 1", ... with the given timestamps. */
  private static void produce(String topic, int records, IntToLongFunction timestamp) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
        kafka.bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < records; i++) {
        producer.send(new ProducerRecord<>(topic, 0, timestamp.applyAsLong(i), null,
            ("value " + i).getBytes(StandardCharsets.UTF_8))).get();
      }
    }
  }

  /** Five records per transaction, named t<transaction>-<record>; each transaction commits or aborts. */
  private static void produceTransactions(String topic, boolean[] commits) {
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
        kafka.bootstrapServers(), "transactional.id", "writer-" + topic), new ByteArraySerializer(),
        new ByteArraySerializer())) {
      producer.initTransactions();
      for (int t = 0; t < commits.length; t++) {
        producer.beginTransaction();
        for (int i = 0; i < 5; i++) {
          producer.send(new ProducerRecord<>(topic, 0, null, ("t" + t + "-" + i).getBytes(StandardCharsets.UTF_8)));
        }
        producer.flush();
        if (commits[t]) {
          producer.commitTransaction();
        } else {
          producer.abortTransaction();
        }
      }
    }
  }

  private static KafkaConsumer<byte[], byte[]> consumer(String group) {
    return new KafkaConsumer<>(Map.of("bootstrap.servers", kafka.bootstrapServers(), "group.id", group,
        "enable.auto.commit", false, "auto.offset.reset", "latest", "isolation.level", "read_committed",
        "max.poll.records", 1), new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** A consumer of the group reads {@code count} records from the start and commits after the last; its value. */
  private static String readAndCommit(String topic, String group, int count) {
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(group)) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
      Await.until(count + " records of " + topic, WAIT, () -> {
        consumer.poll(Duration.ofMillis(200)).forEach(read::add);
        return read.size() >= count;
      });
      ConsumerRecord<byte[], byte[]> last = read.get(count - 1);
      consumer.commitSync(Map.of(tp, new OffsetAndMetadata(last.offset() + 1)));
      return text(last.value());
    }
  }

  /** The first record a new consumer of the group polls: where the group resumes. */
  private static ConsumerRecord<byte[], byte[]> firstPolled(String topic, String group) {
    try (KafkaConsumer<byte[], byte[]> consumer = consumer(group)) {
      consumer.subscribe(List.of(topic));
      return Await.value("a record of " + topic + " for " + group, WAIT, () -> {
        var records = consumer.poll(Duration.ofMillis(200));
        return records.isEmpty() ? Optional.empty() : Optional.of(records.iterator().next());
      });
    }
  }

  private static Map<TopicPartition, Long> committed(String group, String topic) throws Exception {
    try (Admin admin = kafka.admin()) {
      Map<TopicPartition, Long> offsets = new java.util.HashMap<>();
      admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().forEach((tp, o) -> {
        if (o != null && tp.topic().equals(topic)) {
          offsets.put(tp, o.offset());
        }
      });
      return offsets;
    }
  }

  private static void deleteTopic(String topic) throws Exception {
    try (Admin admin = kafka.admin()) {
      admin.deleteTopics(List.of(topic)).all().get();
      Await.until(topic + " deleted", WAIT, () -> {
        try {
          return !admin.listTopics().names().get().contains(topic);
        } catch (Exception e) {
          return false;
        }
      });
    }
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
