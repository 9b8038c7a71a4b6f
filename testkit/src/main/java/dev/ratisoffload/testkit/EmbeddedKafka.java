package dev.ratisoffload.testkit;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;

/**
 * A real single-node Kafka (broker and KRaft controller in one server) in this JVM, on 127.0.0.1.
 *
 * <p>It is formatted like {@code kafka-storage format} does, with a static one-voter quorum, and
 * configured for one broker: the internal topics (consumer offsets, transaction state) have one
 * replica, and topics are never created implicitly. {@link #stop()} and {@link #restart()} keep the
 * data and the ports. The broker's jars are optional dependencies of the test kit: a module that
 * uses this class declares {@code kafka_2.13}, {@code kafka-server}, {@code kafka-server-common},
 * {@code kafka-metadata} and {@code kafka-raft} itself.
 */
public final class EmbeddedKafka implements AutoCloseable {

  static {
    quietLogging();
  }

  private final Path dataDir;
  private final int brokerPort;
  private final int controllerPort;
  private final Map<String, String> overrides;
  private KafkaRaftServer server;

  private EmbeddedKafka(Path dataDir, Map<String, String> overrides) {
    this.dataDir = dataDir;
    final List<Integer> ports = FreePorts.distinct(2);
    this.brokerPort = ports.get(0);
    this.controllerPort = ports.get(1);
    this.overrides = Map.copyOf(overrides);
  }

  /** Formats a new temporary data directory (deleted by {@link #close()}) and starts the server. */
  public static EmbeddedKafka start() throws IOException {
    return start(Map.of());
  }

  /** As {@link #start()}, with broker settings added to or replacing the defaults. */
  public static EmbeddedKafka start(Map<String, String> brokerOverrides) throws IOException {
    final EmbeddedKafka kafka = new EmbeddedKafka(Files.createTempDirectory("embedded-kafka-"), brokerOverrides);
    try {
      kafka.format();
      kafka.startServer();
    } catch (IOException | RuntimeException e) {
      kafka.close();
      throw e;
    }
    return kafka;
  }

  /** {@code 127.0.0.1:<port>} of the broker listener. */
  public String bootstrapServers() {
    return "127.0.0.1:" + brokerPort;
  }

  /** An admin client for this broker; the caller closes it. */
  public Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
  }

  /**
   * Creates topics and waits until every partition has a leader that serves it, so a producer that
   * starts right after does not race the broker taking leadership (an idempotent producer whose first
   * batch meets a leader not yet ready can be left out of sequence): a leader in the metadata, then an
   * answer to an offsets request, which the admin client retries until the leader serves it.
   */
  public void createTopics(NewTopic... topics) throws IOException {
    try (Admin admin = admin()) {
      admin.createTopics(List.of(topics)).all().get(60, TimeUnit.SECONDS);
      final List<String> names = java.util.Arrays.stream(topics).map(NewTopic::name).toList();
      Await.until("leaders for " + names, Duration.ofSeconds(60), () -> {
        try {
          return admin.describeTopics(names).allTopicNames().get(10, TimeUnit.SECONDS).values().stream()
              .allMatch(d -> d.partitions().stream().allMatch(p -> p.leader() != null && !p.isr().isEmpty()));
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
          return false;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError("interrupted", e);
        }
      });
      Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
      for (NewTopic topic : topics) {
        for (int p = 0; p < topic.numPartitions(); p++) {
          latest.put(new TopicPartition(topic.name(), p), OffsetSpec.latest());
        }
      }
      admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IOException("cannot create topics on " + bootstrapServers() + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while creating topics", e);
    }
  }

  /** Stops the server (clients see it unreachable); data and ports are kept for {@link #restart()}. */
  public synchronized void stop() {
    if (server != null) {
      server.shutdown();
      server.awaitShutdown();
      server = null;
    }
  }

  /** Starts again on the same ports with the same data (stopping first if running). */
  public synchronized void restart() throws IOException {
    stop();
    startServer();
  }

  public synchronized boolean isRunning() {
    return server != null;
  }

  /** Stops the server and deletes its data. */
  @Override
  public synchronized void close() throws IOException {
    stop();
    TempDirs.delete(dataDir);
  }

  private Properties config() {
    final Properties p = new Properties();
    p.setProperty("process.roles", "broker,controller");
    p.setProperty("node.id", "1");
    p.setProperty("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
    p.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
    p.setProperty("controller.listener.names", "CONTROLLER");
    p.setProperty("inter.broker.listener.name", "PLAINTEXT");
    p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.setProperty("log.dirs", dataDir.resolve("log").toString());
    // One broker: every internal topic has one replica, or groups and transactions never work.
    p.setProperty("offsets.topic.replication.factor", "1");
    p.setProperty("offsets.topic.num.partitions", "1");
    p.setProperty("transaction.state.log.replication.factor", "1");
    p.setProperty("transaction.state.log.min.isr", "1");
    p.setProperty("transaction.state.log.num.partitions", "1");
    p.setProperty("share.coordinator.state.topic.replication.factor", "1");
    p.setProperty("share.coordinator.state.topic.min.isr", "1");
    p.setProperty("group.initial.rebalance.delay.ms", "0");
    p.setProperty("auto.create.topics.enable", "false");
    p.setProperty("num.partitions", "1");
    // Compaction in tests: the cleaner looks for work often instead of every 15 s.
    p.setProperty("log.cleaner.backoff.ms", "200");
    p.setProperty("log.cleaner.dedupe.buffer.size", String.valueOf(4 * 1024 * 1024));
    p.setProperty("log.cleaner.threads", "1");
    p.setProperty("num.network.threads", "2");
    p.setProperty("num.io.threads", "2");
    p.setProperty("background.threads", "2");
    overrides.forEach(p::setProperty);
    return p;
  }

  private void format() throws IOException {
    final KafkaConfig config = new KafkaConfig(config(), false);
    final String logDir = dataDir.resolve("log").toString();
    try {
      new Formatter()
          .setPrintStream(new PrintStream(PrintStream.nullOutputStream()))
          .setNodeId(config.nodeId())
          .setClusterId(Uuid.randomUuid().toString())
          .setControllerListenerName("CONTROLLER")
          .setMetadataLogDirectory(logDir)
          .addDirectory(logDir)
          .run();
    } catch (Exception e) {
      throw new IOException("cannot format Kafka storage in " + logDir + ": " + e.getMessage(), e);
    }
  }

  private synchronized void startServer() throws IOException {
    final KafkaRaftServer newServer = new KafkaRaftServer(new KafkaConfig(config(), false), Time.SYSTEM);
    try {
      newServer.startup();
      awaitReady();
    } catch (RuntimeException | AssertionError | IOException e) {
      newServer.shutdown();
      newServer.awaitShutdown();
      throw new IOException("cannot start Kafka on " + bootstrapServers() + ": " + e.getMessage(), e);
    }
    server = newServer;
  }

  /** Ready means the broker listener accepts connections and the broker answers metadata requests. */
  private void awaitReady() throws IOException {
    Await.until("Kafka to listen on " + bootstrapServers(), Duration.ofSeconds(60), () -> {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", brokerPort), 1000);
        return true;
      } catch (IOException e) {
        return false;
      }
    });
    try (Admin admin = admin()) {
      admin.describeCluster().nodes().get(60, TimeUnit.SECONDS);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IOException("Kafka on " + bootstrapServers() + " does not answer: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new IOException("interrupted while starting Kafka", e));
    }
  }

  /**
   * The broker logs at INFO per request and per partition; slf4j-simple reads per-logger levels from
   * system properties when a logger is created, so default them to WARN first (a caller's value wins).
   */
  private static void quietLogging() {
    for (String name : List.of("kafka", "org.apache.kafka", "state.change.logger")) {
      final String key = "org.slf4j.simpleLogger.log." + name;
      if (System.getProperty(key) == null) {
        System.setProperty(key, "warn");
      }
    }
  }

  @Override
  public String toString() {
    return "EmbeddedKafka[" + bootstrapServers() + ", data " + dataDir + (isRunning() ? "" : ", stopped") + "]";
  }
}
