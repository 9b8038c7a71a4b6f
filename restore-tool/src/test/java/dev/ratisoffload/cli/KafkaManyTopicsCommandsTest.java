package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.testkit.Await;
import dev.ratisoffload.testkit.EmbeddedKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code offload kafka backup|list|verify|restore} of several topics in one command, against a real broker. */
class KafkaManyTopicsCommandsTest {

  private static EmbeddedKafka kafka;

  @BeforeAll
  static void start() throws Exception {
    kafka = EmbeddedKafka.start();
    kafka.createTopics(new NewTopic("eu.orders", 2, (short) 1), new NewTopic("eu.clicks", 1, (short) 1),
        new NewTopic("us.orders", 1, (short) 1));
    KafkaCommandsTest.produceTo(kafka, "eu.orders", 2, 20);
    KafkaCommandsTest.produceTo(kafka, "eu.clicks", 1, 10);
    KafkaCommandsTest.produceTo(kafka, "us.orders", 1, 5);
  }

  @AfterAll
  static void stop() throws Exception {
    if (kafka != null) {
      kafka.close();
    }
  }

  private static String[] command(Path store, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--store", store.toUri().toString(), "--cluster", "k1"));
    if (args[1].equals("backup") || args[1].equals("restore")) {
      all.addAll(List.of("--bootstrap-server", kafka.bootstrapServers(), "--progress", "never"));
    }
    return all.toArray(String[]::new);
  }

  @Test
  void severalTopicsAreBackedUpListedVerifiedAndRestoredByOneCommandEach(@TempDir Path store) throws Exception {
    Cli.Result named = Cli.run(command(store, "kafka", "backup", "--topic", "eu.orders", "--topic", "eu.clicks"));
    assertEquals(0, named.code(), named::toString);
    assertTrue(named.out().contains("eu.orders") && named.out().contains("eu.clicks")
        && !named.out().contains("us.orders"), named::toString);
    Cli.Result pattern = Cli.run(command(store, "kafka", "backup", "--topic-pattern", "us\\..*", "--json"));
    assertEquals(0, pattern.code(), pattern::toString);
    assertTrue(pattern.out().contains("\"us.orders\"") && !pattern.out().contains("eu."), pattern::toString);

    Cli.Result none = Cli.run(command(store, "kafka", "backup", "--topic-pattern", "eu"));
    assertEquals(2, none.code(), none::toString);
    assertTrue(none.err().contains("no topic on the cluster at ") && none.err().contains("matches"), none::toString);
    Cli.Result someOf = Cli.run(command(store, "kafka", "backup", "--topic", "eu.orders", "--topic", "eu.clicks",
        "--partitions", "0"));
    assertEquals(2, someOf.code(), someOf::toString);
    assertTrue(someOf.err().contains("--partitions chooses partitions of one topic"), someOf::toString);

    Cli.Result listed = Cli.run(command(store, "kafka", "list", "--topic-pattern", "eu\\..*"));
    assertEquals(0, listed.code(), listed::toString);
    assertTrue(listed.out().contains("topic eu.orders (id ") && listed.out().contains("topic eu.clicks (id ")
        && !listed.out().contains("us.orders"), listed::toString);
    Cli.Result two = Cli.run(command(store, "kafka", "list", "--topic", "eu.clicks", "--topic", "us.orders"));
    assertTrue(two.out().contains("topic eu.clicks (id ") && two.out().contains("topic us.orders (id ")
        && !two.out().contains("eu.orders"), two::toString);
    Cli.Result verified = Cli.run(command(store, "kafka", "verify", "--topic", "us.orders", "--topic-pattern", "eu\\.c.*"));
    assertEquals(0, verified.code(), verified::toString);
    assertTrue(verified.out().contains("eu.clicks") && verified.out().contains("us.orders")
        && !verified.out().contains("eu.orders"), verified::toString);

    Cli.Result gc = Cli.run(command(store, "kafka", "gc", "--topic-pattern", "eu\\..*", "--keep-bytes", "1"));
    assertEquals(0, gc.code(), gc::toString);
    assertTrue(gc.out().contains("eu.orders/1 (topic id ") && gc.out().contains("eu.clicks/0 (topic id ")
        && !gc.out().contains("us.orders"), gc::toString);

    Cli.Result renamed = Cli.run(command(store, "kafka", "restore", "--topic", "eu.orders", "--topic", "eu.clicks",
        "--target-topic", "standby"));
    assertEquals(2, renamed.code(), renamed::toString);
    assertTrue(renamed.err().contains("--target-topic applies to one topic"), renamed::toString);

    deleteTopics("eu.orders", "eu.clicks");
    Cli.Result restored = Cli.run(command(store, "kafka", "restore", "--topic", "eu.orders", "--topic", "eu.clicks",
        "--create-topic"));
    assertEquals(0, restored.code(), restored::toString);
    assertTrue(restored.out().contains("records of eu.clicks") && restored.out().contains("records of eu.orders"),
        restored::toString);
    assertEquals(Map.of(new TopicPartition("eu.orders", 0), 20L, new TopicPartition("eu.orders", 1), 20L,
        new TopicPartition("eu.clicks", 0), 10L), ends("eu.orders", 2, "eu.clicks", 1));

    // eu.clicks holds records now, so it is refused; the message says what became of the others
    Cli.Result refused = Cli.run(command(store, "kafka", "restore", "--topic", "us.orders", "--topic", "eu.clicks",
        "--topic", "eu.orders"));
    assertEquals(5, refused.code(), refused::toString);
    assertTrue(refused.err().contains("restoring topic eu.clicks failed (below); no topic was restored before it;"
        + " not started: eu.orders, us.orders"), refused::toString);
  }

  private static void deleteTopics(String... topics) throws Exception {
    try (Admin admin = kafka.admin()) {
      admin.deleteTopics(List.of(topics)).all().get(30, TimeUnit.SECONDS);
      Await.until("the topics to be deleted", Duration.ofSeconds(60), () -> {
        try {
          Set<String> left = admin.listTopics().names().get(30, TimeUnit.SECONDS);
          return List.of(topics).stream().noneMatch(left::contains);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
    }
  }

  private static Map<TopicPartition, Long> ends(String topic, int partitions, String other, int otherPartitions)
      throws Exception {
    Map<TopicPartition, OffsetSpec> specs = new java.util.HashMap<>();
    for (int p = 0; p < partitions; p++) {
      specs.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    for (int p = 0; p < otherPartitions; p++) {
      specs.put(new TopicPartition(other, p), OffsetSpec.latest());
    }
    try (Admin admin = kafka.admin()) {
      return admin.listOffsets(specs).all().get(30, TimeUnit.SECONDS).entrySet().stream()
          .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }
  }
}
