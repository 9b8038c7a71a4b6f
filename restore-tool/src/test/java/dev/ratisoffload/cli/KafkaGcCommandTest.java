package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratisoffload.testkit.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
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
 * {@code offload kafka gc} against a real broker and a directory store: a topic whose first 20 records
 * were written three hours before the last 20, backed up in small segments.
 */
class KafkaGcCommandTest {

  private static EmbeddedKafka kafka;

  @BeforeAll
  static void start() throws Exception {
    kafka = EmbeddedKafka.start();
    kafka.createTopics(new NewTopic("events", 1, (short) 1));
    long now = System.currentTimeMillis();
    produce(0, 20, now - Duration.ofHours(3).toMillis());
    produce(20, 40, now);
  }

  @AfterAll
  static void stop() throws Exception {
    if (kafka != null) {
      kafka.close();
    }
  }

  private static void produce(int from, int to, long timestamp) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
        kafka.bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = from; i < to; i++) {
        producer.send(new ProducerRecord<>("events", 0, timestamp + i, null,
            ("event " + i + " ".repeat(100)).getBytes(StandardCharsets.UTF_8))).get();
      }
    }
  }

  private static String[] command(Path store, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--store", store.toUri().toString(), "--cluster", "k1"));
    return all.toArray(String[]::new);
  }

  private static String[] backup(Path store, String... more) {
    List<String> args = new ArrayList<>(List.of("kafka", "backup", "--bootstrap-server", kafka.bootstrapServers(),
        "--topic", "events", "--progress", "never", "--segment-bytes", "1024"));
    args.addAll(List.of(more));
    return command(store, args.toArray(String[]::new));
  }

  private static String[] restore(Path store, String target, String offsets) {
    return command(store, "kafka", "restore", "--bootstrap-server", kafka.bootstrapServers(), "--topic", "events",
        "--progress", "never", "--target-topic", target, "--create-topic", "--offsets", offsets);
  }

  private static List<Path> files(Path store) throws Exception {
    try (Stream<Path> all = Files.walk(store)) {
      return all.filter(Files::isRegularFile).sorted().toList();
    }
  }

  @Test
  void gcTrimsTheChainAndVerifyListAndRestoreWorkOnWhatIsKept(@TempDir Path store) throws Exception {
    for (int run = 0; run < 3; run++) { // three group offset snapshots, all taken after every record
      assertEquals(0, Cli.run(backup(store)).code());
    }
    List<Path> before = files(store);

    Cli.Result dry = Cli.run(command(store, "kafka", "gc", "--keep-within", "1h"));
    assertEquals(0, dry.code(), dry::toString);
    assertTrue(dry.out().contains("would remove") && dry.out().contains("dry run"), dry::toString);
    assertEquals(before, files(store), "a dry run removes nothing");

    Cli.Result applied = Cli.run(command(store, "kafka", "gc", "--keep-within", "1h", "--apply", "--json"));
    assertEquals(0, applied.code(), applied::toString);
    JsonNode result = new ObjectMapper().readTree(applied.out()).get("chains").get(0);
    long kept = result.get("keptFirst").asLong();
    assertTrue(result.get("applied").asBoolean() && kept > 0 && kept <= 20, applied::toString);
    assertEquals(kept - 1, result.get("removedLast").asLong());
    JsonNode snapshots = new ObjectMapper().readTree(applied.out()).get("groupOffsetSnapshots").get(0);
    assertEquals(3, snapshots.get("kept").asInt(), "snapshots taken after the kept window's start stay: " + applied);
    assertEquals(0, snapshots.get("removed").size(), applied::toString);

    Cli.Result verify = Cli.run(command(store, "kafka", "verify"));
    assertEquals(0, verify.code(), verify::toString);
    Cli.Result list = Cli.run(command(store, "kafka", "list"));
    assertEquals(0, list.code(), list::toString);
    assertTrue(list.out().contains(kept + "-39") && list.out().contains("offsets before " + kept + " removed by kafka gc"),
        list::toString);

    Cli.Result preserve = Cli.run(restore(store, "events-preserved", "preserve"));
    assertEquals(3, preserve.code(), preserve::toString);
    assertTrue(preserve.err().contains("offsets 0-" + (kept - 1)) && preserve.err().contains("kafka gc"),
        preserve::toString);
    Cli.Result renumber = Cli.run(restore(store, "events-renumbered", "renumber"));
    assertEquals(0, renumber.code(), renumber::toString);
    assertTrue(renumber.out().contains("restored " + (40 - kept) + " records"), renumber::toString);
    assertEquals("event " + kept, firstValue("events-renumbered").strip(), "the restore starts at the first kept segment");
    Cli.Result renumberStandby = Cli.run(command(store, "kafka", "restore", "--bootstrap-server",
        kafka.bootstrapServers(), "--topic", "events", "--progress", "never", "--target-topic", "events-renumbered",
        "--offsets", "renumber", "--follow", "--drain-after", "1s"));
    assertEquals(5, renumberStandby.code(), renumberStandby::toString);
    assertTrue(renumberStandby.err().contains("kafka gc removed the start"), renumberStandby::toString);

    // A backup that applies the policy as it runs keeps only what fits.
    produce(40, 50, System.currentTimeMillis());
    Cli.Result trimming = Cli.run(backup(store, "--keep-bytes", "1"));
    assertEquals(0, trimming.code(), trimming::toString);
    long segments = files(store).stream().filter(p -> p.toString().endsWith(".segment")).count();
    assertEquals(1, segments, "only the newest segment stays");
    assertEquals(2, files(store).stream().filter(p -> p.toString().endsWith(".snapshot")).count(),
        "the newest snapshot at or before the kept window (the third backup's) and this backup's own stay");
    assertEquals(0, Cli.run(command(store, "kafka", "verify")).code());
  }

  @Test
  void aBrokenChainHasNothingRemovedAndExits3AndAMissingPolicyExits2(@TempDir Path store) throws Exception {
    assertEquals(0, Cli.run(backup(store)).code());
    List<Path> segments = files(store).stream().filter(p -> p.toString().endsWith(".segment")).toList();
    Files.delete(segments.get(1));
    List<Path> before = files(store);
    Cli.Result broken = Cli.run(command(store, "kafka", "gc", "--keep-within", "1ms", "--apply"));
    assertEquals(3, broken.code(), broken::toString);
    assertTrue(broken.out().contains("REFUSED, nothing removed") && broken.out().contains("are in no segment"),
        broken::toString);
    assertEquals(1, broken.err().lines().count(), broken::toString);
    assertTrue(broken.err().startsWith("offload kafka gc: 1 chain(s) left as they are"), broken::toString);
    assertEquals(before, files(store));

    Cli.Result noPolicy = Cli.run(command(store, "kafka", "gc"));
    assertEquals(2, noPolicy.code(), noPolicy::toString);
    assertTrue(noPolicy.err().contains("--keep-within"), noPolicy::toString);
    Cli.Result badSize = Cli.run(command(store, "kafka", "gc", "--keep-bytes", "12 apples"));
    assertEquals(2, badSize.code(), badSize::toString);
  }

  private static String firstValue(String topic) {
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers",
        kafka.bootstrapServers()), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          return new String(r.value(), StandardCharsets.UTF_8);
        }
      }
      throw new AssertionError("nothing restored into " + topic);
    }
  }
}
