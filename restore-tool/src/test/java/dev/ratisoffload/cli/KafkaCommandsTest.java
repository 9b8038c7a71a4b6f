package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratisoffload.testkit.Await;
import dev.ratisoffload.testkit.EmbeddedKafka;
import dev.ratisoffload.testkit.FreePorts;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code offload kafka backup|restore|list|verify} against a real broker and a directory store. */
class KafkaCommandsTest {

  private static EmbeddedKafka kafka;

  @BeforeAll
  static void start() throws Exception {
    kafka = EmbeddedKafka.start();
    kafka.createTopics(new NewTopic("orders", 2, (short) 1), new NewTopic("clicks", 1, (short) 1));
    produce("orders", 2, 50);
  }

  @AfterAll
  static void stop() throws Exception {
    if (kafka != null) {
      kafka.close();
    }
  }

  static void produce(String topic, int partitions, int perPartition) throws Exception {
    produceTo(kafka, topic, partitions, perPartition);
  }

  static void produceTo(EmbeddedKafka kafka, String topic, int partitions, int perPartition) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
        kafka.bootstrapServers(), "max.in.flight.requests.per.connection", 1), new ByteArraySerializer(),
        new ByteArraySerializer())) {
      for (int i = 0; i < perPartition; i++) {
        for (int p = 0; p < partitions; p++) {
          producer.send(new ProducerRecord<>(topic, p, ("k" + i).getBytes(StandardCharsets.UTF_8),
              ("value " + i + " ".repeat(i)).getBytes(StandardCharsets.UTF_8))).get();
        }
      }
    }
  }

  private static String[] backup(Path store, String topic, String... more) {
    List<String> args = new ArrayList<>(List.of("kafka", "backup", "--bootstrap-server", kafka.bootstrapServers(),
        "--topic", topic, "--store", store.toUri().toString(), "--cluster", "k1", "--progress", "never"));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  @Test
  void backupListAndVerifyAndADamagedSegmentExits3(@TempDir Path store) throws Exception {
    Cli.Result first = Cli.run(backup(store, "orders", "--segment-bytes", "2048"));
    assertEquals(0, first.code(), first::toString);
    assertTrue(first.out().contains("orders") && first.out().contains("NEXT OFFSET"), first::toString);
    Cli.Result again = Cli.run(backup(store, "orders", "--json"));
    assertEquals(0, again.code(), again::toString);
    JsonNode summary = new ObjectMapper().readTree(again.out());
    assertEquals(0, summary.at("/partitions/0/recordsStored").asLong(), "nothing new to store");
    assertEquals(50, summary.at("/partitions/0/nextOffset").asLong());

    Cli.Result list = Cli.run("kafka", "list", "--store", store.toUri().toString(), "--cluster", "k1");
    assertEquals(0, list.code(), list::toString);
    assertTrue(list.out().contains("topic orders (id ") && list.out().contains("100 records"), list::toString);
    Cli.Result json = Cli.run("kafka", "list", "--store", store.toUri().toString(), "--cluster", "k1", "--json");
    assertEquals(100, new ObjectMapper().readTree(json.out()).at("/topics/0/records").asLong(), json::toString);

    Cli.Result verify = Cli.run("kafka", "verify", "--store", store.toUri().toString(), "--cluster", "k1");
    assertEquals(0, verify.code(), verify::toString);
    assertTrue(verify.out().contains("verified:"), verify::toString);

    Path segment;
    try (Stream<Path> files = Files.walk(store)) {
      segment = files.filter(p -> p.toString().endsWith(".segment")).sorted().findFirst().orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(segment);
    bytes[bytes.length / 2] ^= 0x40;
    Files.write(segment, bytes);
    Cli.Result damaged = Cli.run("kafka", "verify", "--store", store.toUri().toString(), "--cluster", "k1");
    assertEquals(3, damaged.code(), damaged::toString);
    assertEquals(1, damaged.err().lines().count(), damaged::toString);
    assertTrue(damaged.err().startsWith("offload kafka verify: ")
        && damaged.err().contains(store.relativize(segment).toString()), damaged::toString);
  }

  @Test
  void failuresExitWithTheirCodesAndOneLine(@TempDir Path store) throws Exception {
    Cli.Result unknown = Cli.run(backup(store, "no-such-topic"));
    assertEquals(2, unknown.code(), unknown::toString);
    assertTrue(unknown.err().contains("does not exist"), unknown::toString);

    Cli.Result isolation = Cli.run(backup(store, "orders", "--isolation", "dirty"));
    assertEquals(2, isolation.code(), isolation::toString);

    Path file = java.nio.file.Files.createTempFile("client", ".properties");
    java.nio.file.Files.writeString(file, "auto.offset.reset=earliest\n");
    file.toFile().deleteOnExit();
    Cli.Result reset = Cli.run(backup(store, "orders", "--command-config", file.toString()));
    assertEquals(2, reset.code(), reset::toString);
    assertTrue(reset.err().contains("auto.offset.reset"), reset::toString);

    Cli.Result unreachable = Cli.run("kafka", "backup", "--bootstrap-server", "127.0.0.1:" + FreePorts.next(),
        "--topic", "orders", "--store", store.toUri().toString(), "--cluster", "k1", "--broker-timeout", "2s");
    assertEquals(4, unreachable.code(), unreachable::toString);
    assertEquals(1, unreachable.err().lines().count(), unreachable::toString);

    Cli.Result nothing = Cli.run("kafka", "list", "--store", store.toUri().toString(), "--cluster", "k1");
    assertEquals(3, nothing.code(), nothing::toString);
    Cli.Result noSubcommand = Cli.run("kafka");
    assertEquals(2, noSubcommand.code(), noSubcommand::toString);
  }

  @Test
  void aRecreatedTopicIsRefusedWithExit5(@TempDir Path store) throws Exception {
    kafka.createTopics(new NewTopic("reborn", 1, (short) 1));
    produce("reborn", 1, 3);
    assertEquals(0, Cli.run(backup(store, "reborn")).code());
    try (Admin admin = kafka.admin()) {
      admin.deleteTopics(List.of("reborn")).all().get();
    }
    Await.until("the topic to be created again", Duration.ofSeconds(30), () -> {
      try {
        kafka.createTopics(new NewTopic("reborn", 1, (short) 1));
        return true;
      } catch (Exception e) {
        return false; // the deletion is still settling
      }
    });
    Cli.Result refused = Cli.run(backup(store, "reborn"));
    assertEquals(5, refused.code(), refused::toString);
    assertTrue(refused.err().contains("--accept-recreated-topic"), refused::toString);
    assertEquals(0, Cli.run(backup(store, "reborn", "--accept-recreated-topic")).code());
  }

  @Test
  void sigtermStopsAFollowingBackupWithExit0(@TempDir Path dir) throws Exception {
    Path store = Files.createDirectories(dir.resolve("store"));
    Path output = dir.resolve("offload.log");
    Process process = start(output, backup(store, "clicks", "--follow", "--segment-age", "300ms"));
    try {
      produce("clicks", 1, 10);
      Await.until("the following backup to store the new records", Duration.ofSeconds(60), () -> {
        try (Stream<Path> files = Files.walk(store)) {
          return files.anyMatch(p -> p.toString().endsWith("-0000000000000000009.segment"));
        } catch (java.io.IOException e) {
          return false;
        }
      });
      long signalled = System.nanoTime();
      process.destroy(); // SIGTERM
      assertTrue(process.waitFor(10, TimeUnit.SECONDS));
      long millis = (System.nanoTime() - signalled) / 1_000_000;
      String printed = Files.readString(output);
      assertEquals(0, process.exitValue(), printed);
      assertTrue(millis < 2000, "stopped in " + millis + " ms");
      assertTrue(printed.contains("clicks") && printed.contains("NEXT OFFSET"), printed);
    } finally {
      process.destroyForcibly();
    }
  }

  private static String[] restore(Path store, String... more) {
    List<String> args = new ArrayList<>(List.of("kafka", "restore", "--bootstrap-server", kafka.bootstrapServers(),
        "--topic", "orders", "--store", store.toUri().toString(), "--cluster", "k1", "--progress", "never"));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  @Test
  void restoreCreatesTheTopicAndRefusesToWriteIntoItAgain(@TempDir Path store) {
    assertEquals(0, Cli.run(backup(store, "orders", "--segment-bytes", "1024")).code());
    Cli.Result restored = Cli.run(restore(store, "--target-topic", "orders-restored", "--create-topic"));
    assertEquals(0, restored.code(), restored::toString);
    assertTrue(restored.out().contains("restored 100 records of orders") && restored.out().contains("NEXT OFFSET"),
        restored::toString);

    Cli.Result again = Cli.run(restore(store, "--target-topic", "orders-restored"));
    assertEquals(5, again.code(), again::toString);
    assertEquals(1, again.err().lines().count(), again::toString);
    assertTrue(again.err().startsWith("offload kafka restore: target topic orders-restored is not empty"),
        again::toString);

    Cli.Result missing = Cli.run(restore(store, "--target-topic", "orders-nowhere"));
    assertEquals(2, missing.code(), missing::toString);
    assertTrue(missing.err().contains("--create-topic"), missing::toString);

    Cli.Result renumbered = Cli.run(restore(store, "--target-topic", "orders-renumbered", "--create-topic",
        "--offsets", "renumber", "--json"));
    assertEquals(0, renumbered.code(), renumbered::toString);
    assertTrue(renumbered.out().contains("\"offsets\" : \"renumber\""), renumbered::toString);
  }

  @Test
  void restoreFailuresExitWithTheirCodes(@TempDir Path store) {
    Cli.Result nothing = Cli.run(restore(store, "--create-topic"));
    assertEquals(3, nothing.code(), nothing::toString);
    assertTrue(nothing.err().contains("no backup of topic orders"), nothing::toString);

    Cli.Result mode = Cli.run(restore(store, "--offsets", "shuffle"));
    assertEquals(2, mode.code(), mode::toString);
    Cli.Result both = Cli.run(restore(store, "--follow", "--until", "2026-01-01"));
    assertEquals(2, both.code(), both::toString);
    Cli.Result fast = Cli.run(restore(store, "--follow", "--poll-interval", "10ms"));
    assertEquals(2, fast.code(), fast::toString);
    assertTrue(fast.err().contains("floor of 100 ms"), fast::toString);

    assertEquals(0, Cli.run(backup(store, "orders")).code());
    Cli.Result unreachable = Cli.run("kafka", "restore", "--bootstrap-server", "127.0.0.1:" + FreePorts.next(),
        "--topic", "orders", "--store", store.toUri().toString(), "--cluster", "k1", "--broker-timeout", "2s");
    assertEquals(4, unreachable.code(), unreachable::toString);
    assertEquals(1, unreachable.err().lines().count(), unreachable::toString);
  }

  @Test
  void sigtermStopsAFollowingRestoreWithExit0(@TempDir Path dir) throws Exception {
    Path store = Files.createDirectories(dir.resolve("store"));
    assertEquals(0, Cli.run(backup(store, "clicks")).code());
    Path output = dir.resolve("offload.log");
    Process process = start(output, "kafka", "restore", "--bootstrap-server", kafka.bootstrapServers(),
        "--topic", "clicks", "--target-topic", "clicks-standby", "--create-topic", "--follow",
        "--store", store.toUri().toString(), "--cluster", "k1");
    try {
      Await.until("the follower to start", Duration.ofSeconds(60), () -> {
        try {
          return Files.readString(output).contains("partition 0: continuing at target offset");
        } catch (java.io.IOException e) {
          return false;
        }
      });
      process.destroy(); // SIGTERM
      assertTrue(process.waitFor(10, TimeUnit.SECONDS), "the follower exits within 10 s of SIGTERM");
      String printed = Files.readString(output);
      assertEquals(0, process.exitValue(), printed);
      assertTrue(printed.contains("stopped after restoring"), printed);
    } finally {
      process.destroyForcibly();
    }
  }

  /**
   * A follower blocked in a broker call (a broker that accepts the connection and never answers, with
   * --broker-timeout 60s) ends within 2 s of SIGTERM with exit 0, and leaves nothing half-written. The
   * requirement is "within 2 seconds": the bound asserted is that requirement, measured from the signal
   * to the process's end.
   */
  @Test
  void sigtermEndsAFollowingBackupBlockedInABrokerCallWithin2Seconds(@TempDir Path dir) throws Exception {
    Path store = Files.createDirectories(dir.resolve("store"));
    try (SilentBroker silent = new SilentBroker()) {
      Process process = start(dir.resolve("offload.log"), "kafka", "backup", "--bootstrap-server", silent.address(),
          "--topic", "clicks", "--store", store.toUri().toString(), "--cluster", "k1", "--follow",
          "--broker-timeout", "60s", "--progress", "never");
      assertStopsWithin2Seconds(process, silent, dir.resolve("offload.log"));
    }
    try (Stream<Path> files = Files.walk(store)) {
      assertEquals(List.of(store), files.toList(), "nothing stored, nothing half-written");
    }
  }

  @Test
  void sigtermEndsAFollowingRestoreBlockedInABrokerCallWithin2Seconds(@TempDir Path dir) throws Exception {
    Path store = Files.createDirectories(dir.resolve("store"));
    assertEquals(0, Cli.run(backup(store, "clicks")).code());
    try (SilentBroker silent = new SilentBroker()) {
      Process process = start(dir.resolve("offload.log"), "kafka", "restore", "--bootstrap-server", silent.address(),
          "--topic", "clicks", "--target-topic", "clicks-standby", "--create-topic", "--follow", "--store",
          store.toUri().toString(), "--cluster", "k1", "--broker-timeout", "60s");
      assertStopsWithin2Seconds(process, silent, dir.resolve("offload.log"));
      assertTrue(Files.readString(dir.resolve("offload.log")).contains("stopped after restoring 0 records"));
    }
    assertEquals(0, Cli.run("kafka", "verify", "--store", store.toUri().toString(), "--cluster", "k1").code());
  }

  @Test
  void aFollowerThatCannotHandleSigtermDoesNotStart(@TempDir Path dir) throws Exception {
    Path store = Files.createDirectories(dir.resolve("store"));
    Cli.Result result = ChildCli.run(List.of("-Xrs"), Map.of(), dir, backup(store, "clicks", "--follow"));
    assertEquals(2, result.code(), result::toString);
    assertTrue(result.err().contains("cannot handle SIGTERM") && result.err().contains("-Xrs"), result::toString);
  }

  private static void assertStopsWithin2Seconds(Process process, SilentBroker silent, Path output) throws Exception {
    try {
      silent.awaitConnection(Duration.ofSeconds(60)); // the follower is waiting for the broker's answer
      long signalled = System.nanoTime();
      process.destroy(); // SIGTERM
      assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the follower exits");
      long millis = (System.nanoTime() - signalled) / 1_000_000;
      String printed = Files.readString(output);
      assertEquals(0, process.exitValue(), printed);
      assertTrue(millis < 2000, () -> "ended " + millis + " ms after SIGTERM: " + printed);
    } finally {
      process.destroyForcibly();
    }
  }

  /** {@code offload} in a JVM of its own, its standard output and error into {@code output}. */
  private static Process start(Path output, String... args) throws java.io.IOException {
    List<String> command = new ArrayList<>(List.of(ChildCli.javaExecutable(), "-Xmx256m", "-cp",
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
        OffloadCommand.class.getName()));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
  }

  /** A "broker" on loopback that accepts connections and never answers: every call to it waits. */
  private static final class SilentBroker implements AutoCloseable {
    private final java.net.ServerSocket server;
    private final List<java.net.Socket> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Thread acceptor;

    SilentBroker() throws java.io.IOException {
      server = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
      acceptor = new Thread(() -> {
        try {
          while (true) {
            accepted.add(server.accept());
          }
        } catch (java.io.IOException closed) {
          // closed: the test is over
        }
      }, "silent-broker");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    String address() {
      return "127.0.0.1:" + server.getLocalPort();
    }

    void awaitConnection(Duration timeout) {
      Await.until("a client to connect", timeout, () -> !accepted.isEmpty());
    }

    @Override
    public void close() throws Exception {
      server.close();
      for (java.net.Socket s : accepted) {
        s.close();
      }
      acceptor.join(5000);
    }
  }
}
