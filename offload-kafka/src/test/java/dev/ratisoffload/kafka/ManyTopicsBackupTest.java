package dev.ratisoffload.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.backup.BackupListener;
import dev.ratisoffload.kafka.backup.BackupProgress;
import dev.ratisoffload.kafka.backup.BackupSettings;
import dev.ratisoffload.kafka.backup.BackupSummary;
import dev.ratisoffload.kafka.backup.KafkaBackup;
import dev.ratisoffload.kafka.format.TimestampKind;
import dev.ratisoffload.kafka.format.TopicSelection;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.TopicIncarnation;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.testkit.Await;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One backup of several topics against a real broker: one consumer and one admin client serve every
 * topic (seen through the clients' JMX metrics, which Kafka registers per client id and, for fetches,
 * per topic), and each topic keeps its own chains.
 */
class ManyTopicsBackupTest {

  @RegisterExtension
  static final KafkaBroker kafka = new KafkaBroker();
  private static final String CLUSTER = "many";
  private static final Duration DEADLINE = Duration.ofSeconds(90);

  @Test
  void namedTopicsAreBackedUpByOneConsumerEachIntoItsOwnChains(@TempDir Path dir) throws Exception {
    kafka.createTopics(new NewTopic("alpha", 2, (short) 1), new NewTopic("beta", 1, (short) 1));
    Produced alpha = produce("alpha", 2, 7);
    Produced beta = produce("beta", 1, 5);
    Clients[] seen = new Clients[1];
    BackupListener listener = new BackupListener() {
      @Override
      public void started(BackupProgress progress) {
        seen[0] = Clients.now(); // on the backup's thread, while its clients are open
      }
    };
    try (ObjectStore store = TestStores.directory(dir)) {
      List<BackupSummary> summaries = new KafkaBackup(BackupSettings.builder(kafka.bootstrapServers(),
          TopicSelection.of(List.of("beta", "alpha"), null), CLUSTER).build(), store, listener).run();

      assertEquals(List.of("alpha", "beta"), summaries.stream().map(BackupSummary::topic).toList());
      assertEquals(2 * 7 + 5, summaries.stream().mapToLong(BackupSummary::recordsStored).sum());
      ChainContents alphaChain = ChainContents.read(store, CLUSTER, "alpha");
      assertEquals(alpha.records(0), alphaChain.records(0));
      assertEquals(alpha.records(1), alphaChain.records(1));
      assertEquals(beta.records(0), ChainContents.read(store, CLUSTER, "beta").records(0));
      assertTrue(incarnation(store, "alpha").newestManifest().isPresent(), "alpha has its own manifest");
      assertTrue(incarnation(store, "beta").newestManifest().isPresent(), "beta has its own manifest");
    }
    assertEquals(1, seen[0].consumers().size(), () -> "one consumer: " + seen[0]);
    assertEquals(1, seen[0].admins().size(), () -> "one admin client: " + seen[0]);
  }

  @Test
  void aPatternPicksUpTopicsCreatedWhileFollowingAndNeverInternalOnes(@TempDir Path dir) throws Exception {
    kafka.createTopics(new NewTopic("p.one", 1, (short) 1), new NewTopic("other", 1, (short) 1));
    Produced one = produce("p.one", 1, 4);
    produce("other", 1, 3);
    try (Admin admin = kafka.admin()) { // a committed offset makes the broker create __consumer_offsets
      admin.alterConsumerGroupOffsets("readers", Map.of(new TopicPartition("p.one", 0), new OffsetAndMetadata(2)))
          .all().get(30, TimeUnit.SECONDS);
    }
    BackupSettings settings = BackupSettings.builder(kafka.bootstrapServers(),
            TopicSelection.of(List.of(), "p\\..*|__.*"), CLUSTER)
        .follow(true).segmentAge(Duration.ofMillis(500)).topicRecheckInterval(Duration.ofSeconds(1))
        .groupOffsetsInterval(Duration.ofSeconds(1)).build();
    try (ObjectStore store = TestStores.directory(dir)) {
      KafkaBackup backup = new KafkaBackup(settings, store, BackupListener.NONE);
      CompletableFuture<List<BackupSummary>> running = CompletableFuture.supplyAsync(backup::run);
      try {
        Await.until("p.one stored", DEADLINE, () -> alive(running) && stored(store, "p.one") == 4);
        kafka.createTopics(new NewTopic("p.two", 2, (short) 1));
        Produced two = produce("p.two", 2, 6);
        Await.until("p.two, created while following, stored", DEADLINE,
            () -> alive(running) && stored(store, "p.two") == 2 * 6);

        Clients clients = Clients.now();
        assertEquals(1, clients.consumers().size(), () -> "one consumer: " + clients);
        assertEquals(1, clients.admins().size(), () -> "one admin client: " + clients);
        Set<String> fetched = clients.topicsFetched(clients.consumers().first());
        assertTrue(fetched.containsAll(Set.of("p.one", "p.two")) && !fetched.contains("other"),
            () -> "the one consumer fetches both topics, and only those: " + fetched);
        assertEquals(two.records(1), ChainContents.read(store, CLUSTER, "p.two").records(1));
        assertEquals(one.records(0), ChainContents.read(store, CLUSTER, "p.one").records(0));
      } finally {
        backup.requestStop();
      }
      List<BackupSummary> summaries = running.get(60, TimeUnit.SECONDS);
      assertEquals(List.of("p.one", "p.two"), summaries.stream().map(BackupSummary::topic).toList());
      assertTrue(KafkaBackupCatalog.scan(store, CLUSTER, "other").incarnations().isEmpty(), "other does not match");
      assertTrue(KafkaBackupCatalog.scan(store, CLUSTER, "__consumer_offsets").incarnations().isEmpty(),
          "an internal topic is never backed up, even where the pattern matches it");
    }
  }

  private static Produced produce(String topic, int partitions, int perPartition) throws Exception {
    Produced produced = new Produced();
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      for (int i = 0; i < perPartition; i++) {
        records.add(new ProducerRecord<>(topic, p, System.currentTimeMillis(),
            (topic + "-" + i).getBytes(StandardCharsets.UTF_8), ("value " + i).getBytes(StandardCharsets.UTF_8)));
      }
    }
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(), Map.of())) {
      produced.send(producer, records, TimestampKind.CREATE_TIME);
    }
    return produced;
  }

  /** True while the backup runs; its failure, thrown, once it failed. */
  private static boolean alive(CompletableFuture<?> running) {
    if (running.isDone()) {
      running.join();
      throw new AssertionError("the following backup ended by itself");
    }
    return true;
  }

  private static TopicIncarnation incarnation(ObjectStore store, String topic) {
    return KafkaBackupCatalog.scan(store, CLUSTER, topic).incarnations(topic).get(0);
  }

  /** Records stored for a topic over all its partitions (0 before anything was stored). */
  private static int stored(ObjectStore store, String topic) {
    List<TopicIncarnation> incarnations = KafkaBackupCatalog.scan(store, CLUSTER, topic).incarnations(topic);
    if (incarnations.isEmpty()) {
      return 0;
    }
    ChainContents chain = ChainContents.read(store, incarnations.get(0));
    int total = 0;
    for (int p : incarnations.get(0).partitions().keySet()) {
      total += chain.records(p).size();
    }
    return total;
  }

  /** The backup's Kafka clients open in this JVM, by the client ids Kafka registers their metrics under. */
  private record Clients(Set<ObjectName> names) {

    static Clients now() {
      return new Clients(ManagementFactory.getPlatformMBeanServer().queryNames(null, null));
    }

    TreeSet<String> consumers() {
      return clientIds("kafka.consumer", "consumer-metrics", "offload-kafka-backup-");
    }

    TreeSet<String> admins() {
      return clientIds("kafka.admin.client", "admin-client-metrics", "offload-kafka-backup-admin-");
    }

    /** The topics a consumer fetches, from its per-topic fetch metrics (Kafka names each also with '_' for '.'). */
    Set<String> topicsFetched(String clientId) {
      Set<String> topics = new TreeSet<>();
      for (ObjectName name : names) {
        if (name.getDomain().equals("kafka.consumer") && "consumer-fetch-manager-metrics".equals(name.getKeyProperty("type"))
            && clientId.equals(name.getKeyProperty("client-id")) && name.getKeyProperty("topic") != null) {
          topics.add(name.getKeyProperty("topic"));
        }
      }
      return topics;
    }

    private TreeSet<String> clientIds(String domain, String type, String prefix) {
      TreeSet<String> ids = new TreeSet<>();
      for (ObjectName name : names) {
        String id = name.getKeyProperty("client-id");
        if (name.getDomain().equals(domain) && type.equals(name.getKeyProperty("type")) && id != null
            && id.startsWith(prefix) && !(domain.equals("kafka.consumer") && id.startsWith("offload-kafka-backup-admin-"))) {
          ids.add(id);
        }
      }
      return ids;
    }
  }
}
