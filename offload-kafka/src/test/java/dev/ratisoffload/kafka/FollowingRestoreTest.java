package dev.ratisoffload.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.backup.BackupListener;
import dev.ratisoffload.kafka.backup.BackupSettings;
import dev.ratisoffload.kafka.backup.KafkaTopicBackup;
import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.KafkaLayout.ManifestKey;
import dev.ratisoffload.kafka.format.TimestampKind;
import dev.ratisoffload.kafka.format.TopicManifest;
import dev.ratisoffload.kafka.format.TopicManifestCodec;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.kafka.read.TopicIncarnation;
import dev.ratisoffload.kafka.restore.KafkaTopicRestore;
import dev.ratisoffload.kafka.restore.RestoreListener;
import dev.ratisoffload.kafka.restore.RestoreSettings;
import dev.ratisoffload.kafka.restore.RestoreSummary;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.testkit.Await;
import dev.ratisoffload.testkit.EmbeddedS3;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Follow mode against a real broker and S3Proxy: a standby follows a backup that keeps growing, stops
 * and resumes where the target says, refuses a target holding something else, ends at a gap or (when
 * preserving offsets) a hole naming the offsets, and rides out a store outage.
 */
class FollowingRestoreTest {

  @RegisterExtension
  static final KafkaBroker kafka = new KafkaBroker();
  private static final String CLUSTER = "live";
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static EmbeddedS3 s3;
  private static ObjectStore store;

  @BeforeAll
  static void start() throws Exception {
    s3 = EmbeddedS3.start();
    s3.createBucket("backups");
    store = TestStores.s3(s3, "backups/kafka");
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

  private static void backup(String topic, ObjectStore into) {
    new KafkaTopicBackup(BackupSettings.builder(kafka.bootstrapServers(), topic, CLUSTER).segmentBytes(2048).build(),
        into, BackupListener.NONE).run();
  }

  private static void produce(Produced produced, String topic, int partitions, int perPartition, String tag)
      throws Exception {
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int i = 0; i < perPartition; i++) {
      for (int p = 0; p < partitions; p++) {
        records.add(new ProducerRecord<>(topic, p, System.currentTimeMillis() - 60_000 + i,
            (tag + "-" + i).getBytes(StandardCharsets.UTF_8), ("value " + tag + " " + i).getBytes(StandardCharsets.UTF_8)));
      }
    }
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(), Map.of())) {
      produced.send(producer, records, TimestampKind.CREATE_TIME);
    }
  }

  private static RestoreSettings.Builder following(String topic, String target) {
    return RestoreSettings.builder(kafka.bootstrapServers(), CLUSTER, topic).targetTopic(target).follow(true)
        .createTopic(true).pollInterval(Duration.ofMillis(100)).brokerTimeout(Duration.ofSeconds(10));
  }

  private static void awaitOffsets(String topic, int partitions, long offsets) {
    Await.until(topic + " to hold " + offsets + " offsets", DEADLINE,
        () -> TopicContents.offsets(kafka.bootstrapServers(), topic, partitions) == offsets);
  }

  @Test
  void followsAGrowingBackupStopsAndResumesAtTheTargetsHighWatermark() throws Exception {
    kafka.createTopics(new NewTopic("orders", 2, (short) 1));
    Produced produced = new Produced();
    produce(produced, "orders", 2, 30, "a");
    backup("orders", store);
    try (Follower first = Follower.start(following("orders", "orders-standby").build(), store)) {
      awaitOffsets("orders-standby", 2, 60);
      produce(produced, "orders", 2, 20, "b");
      backup("orders", store);
      awaitOffsets("orders-standby", 2, 100);
      RestoreSummary summary = first.stop();
      assertEquals(RestoreSummary.Ending.STOPPED, summary.ending());
      assertEquals(100, summary.records());
    }
    produce(produced, "orders", 2, 10, "c");
    backup("orders", store);
    try (Follower second = Follower.start(following("orders", "orders-standby").build(), store)) {
      awaitOffsets("orders-standby", 2, 120);
      assertTrue(second.resumed.containsAll(List.of("0@50/50", "1@50/50")), second.resumed::toString);
      assertEquals(20, second.stop().records());
    }
    produce(produced, "orders", 2, 5, "d");
    backup("orders", store);
    RestoreSummary drained = new KafkaTopicRestore(following("orders", "orders-standby")
        .drainAfter(Duration.ofMillis(500)).build(), store, RestoreListener.NONE).run();
    assertEquals(RestoreSummary.Ending.DRAINED, drained.ending(), "caught up, the follower drains and ends");
    assertEquals(10, drained.records());
    Map<Integer, List<BackupRecord>> standby = TopicContents.read(kafka.bootstrapServers(), "orders-standby", 2);
    for (int p = 0; p < 2; p++) {
      assertEquals(produced.records(p), standby.get(p), "partition " + p);
    }
  }

  @Test
  void aTargetHoldingSomethingElseIsRefused() throws Exception {
    kafka.createTopics(new NewTopic("payments", 1, (short) 1), new NewTopic("payments-elsewhere", 1, (short) 1));
    produce(new Produced(), "payments", 1, 5, "real");
    backup("payments", store);
    produce(new Produced(), "payments-elsewhere", 1, 1, "other");
    try (Follower follower = Follower.start(following("payments", "payments-elsewhere").build(), store)) {
      Throwable failure = follower.awaitFailure();
      KafkaOffloadException e = assertInstanceOf(KafkaOffloadException.class, failure);
      assertEquals(KafkaOffloadException.Kind.REFUSED, e.kind());
      assertTrue(e.getMessage().contains("payments-elsewhere/0: its last record (offset 0) differs"), e::getMessage);
    }
    assertEquals(1, TopicContents.offsets(kafka.bootstrapServers(), "payments-elsewhere", 1));
  }

  @Test
  void aGapInTheChainEndsTheFollowerNamingTheMissingOffsets(@TempDir Path dir) throws Exception {
    kafka.createTopics(new NewTopic("gappy", 1, (short) 1));
    try (ObjectStore whole = TestStores.directory(Files.createDirectories(dir.resolve("whole")));
        ObjectStore cut = TestStores.directory(Files.createDirectories(dir.resolve("cut")))) {
      for (String round : List.of("a", "b", "c")) {
        produce(new Produced(), "gappy", 1, 10, round);
        backup("gappy", whole);
      }
      for (ObjectInfo object : whole.list("kafka/")) {
        if (!object.key().contains("/0000000000000000010-")) { // the middle segment, offsets 10-19
          try (InputStream in = whole.get(object.key())) {
            cut.putIfAbsent(object.key(), Content.of(in.readAllBytes()));
          }
        }
      }
      try (Follower follower = Follower.start(following("gappy", "gappy-standby").build(), cut)) {
        IntegrityException e = assertInstanceOf(IntegrityException.class, follower.awaitFailure());
        assertTrue(e.getMessage().contains("does not continue at offset 10") && e.getMessage().contains("offsets 10-19"),
            e::getMessage);
      }
    }
    assertEquals(10, TopicContents.offsets(kafka.bootstrapServers(), "gappy-standby", 1), "everything before the gap");
  }

  @Test
  void aHoleEndsAFollowerThatPreservesOffsetsWhenReached() throws Exception {
    kafka.createTopics(new NewTopic("ledger", 1, (short) 1));
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(),
        Map.of("transactional.id", "ledger-writer"))) {
      producer.initTransactions();
      for (boolean commit : new boolean[] {true, false}) {
        producer.beginTransaction();
        for (int i = 0; i < 4; i++) {
          producer.send(new ProducerRecord<>("ledger", 0, null, ("entry " + i).getBytes(StandardCharsets.UTF_8)));
        }
        if (commit) {
          producer.commitTransaction();
        } else {
          producer.abortTransaction();
        }
      }
    }
    backup("ledger", store);
    try (Follower follower = Follower.start(following("ledger", "ledger-standby").build(), store)) {
      KafkaOffloadException e = assertInstanceOf(KafkaOffloadException.class, follower.awaitFailure());
      assertEquals(KafkaOffloadException.Kind.INCONSISTENT, e.kind());
      // offsets 0-3 committed records, 4 the commit marker
      assertTrue(e.getMessage().contains("has no record at offsets 4-") && e.getMessage().contains(
          "every record before offset 4"), e::getMessage);
    }
    assertEquals(4, TopicContents.offsets(kafka.bootstrapServers(), "ledger-standby", 1));
  }

  @Test
  void aTargetWhoseLastOffsetIsATransactionMarkerIsContinued() throws Exception {
    kafka.createTopics(new NewTopic("journal", 1, (short) 1), new NewTopic("journal-standby", 1, (short) 1));
    long time = System.currentTimeMillis() - 60_000;
    List<ProducerRecord<byte[], byte[]>> committed = new ArrayList<>();
    List<ProducerRecord<byte[], byte[]>> plain = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      committed.add(new ProducerRecord<>("journal", 0, time + i, null, ("entry " + i).getBytes(StandardCharsets.UTF_8)));
      plain.add(new ProducerRecord<>("journal", 0, time + 10 + i, null, ("later " + i).getBytes(StandardCharsets.UTF_8)));
    }
    Produced produced = new Produced();
    commit("journal", committed, produced); // offsets 0-3, the commit marker at 4
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(), Map.of())) {
      produced.send(producer, plain, TimestampKind.CREATE_TIME); // offsets 5-8
    }
    backup("journal", store);
    // The standby already holds the transaction, written as it was: its last offset (4) is a marker.
    commit("journal-standby", committed.stream().map(r -> new ProducerRecord<>("journal-standby", 0, r.timestamp(),
        r.key(), r.value())).toList(), new Produced());
    try (Follower follower = Follower.start(following("journal", "journal-standby").build(), store)) {
      Await.until("journal-standby to hold 9 offsets", DEADLINE, () -> follower.running()
          && TopicContents.offsets(kafka.bootstrapServers(), "journal-standby", 1) == 9);
      assertEquals(List.of("0@5/5"), follower.resumed);
      assertEquals(4, follower.stop().records());
    }
    List<BackupRecord> standby = TopicContents.read(kafka.bootstrapServers(), "journal-standby", 1).get(0);
    assertEquals(produced.records(0), standby);

    // Renumbering writes every offset as a record: a marker among them means the target holds something else.
    kafka.createTopics(new NewTopic("journal-renumbered", 1, (short) 1));
    commit("journal-renumbered", committed.stream().map(r -> new ProducerRecord<>("journal-renumbered", 0,
        r.timestamp(), r.key(), r.value())).toList(), new Produced());
    try (Follower follower = Follower.start(following("journal", "journal-renumbered")
        .offsetMode(dev.ratisoffload.kafka.restore.OffsetMode.RENUMBER).build(), store)) {
      KafkaOffloadException e = assertInstanceOf(KafkaOffloadException.class, follower.awaitFailure());
      assertEquals(KafkaOffloadException.Kind.REFUSED, e.kind());
      assertTrue(e.getMessage().contains("its offsets 4-4 hold no record"), e::getMessage);
    }
  }

  @Test
  void partitionsAddedToTheSourceAreAddedToAStandbyItCreatedAndFollowed() throws Exception {
    kafka.createTopics(new NewTopic("growing", 1, (short) 1));
    Produced produced = new Produced();
    produce(produced, "growing", 1, 10, "a");
    backup("growing", store);
    try (Follower follower = Follower.start(following("growing", "growing-standby").build(), store)) {
      awaitOffsets("growing-standby", 1, 10);
      addPartitions("growing", 2);
      produce(produced, "growing", 2, 5, "b");
      backup("growing", store); // stores partition 1's chain and a manifest of 2 partitions
      Await.until("the standby to have 2 partitions", DEADLINE, () -> partitions("growing-standby") == 2);
      awaitOffsets("growing-standby", 2, 20);
      assertEquals(20, follower.stop().records());
    }
    Map<Integer, List<BackupRecord>> standby = TopicContents.read(kafka.bootstrapServers(), "growing-standby", 2);
    for (int p = 0; p < 2; p++) {
      assertEquals(produced.records(p), standby.get(p), "partition " + p);
    }
  }

  @Test
  void partitionsAddedToTheSourceEndAFollowerThatMayNotAddThemNamingThem() throws Exception {
    kafka.createTopics(new NewTopic("fixed", 1, (short) 1), new NewTopic("fixed-standby", 1, (short) 1));
    produce(new Produced(), "fixed", 1, 4, "a");
    backup("fixed", store);
    try (Follower follower = Follower.start(following("fixed", "fixed-standby").createTopic(false).build(), store)) {
      awaitOffsets("fixed-standby", 1, 4);
      addPartitions("fixed", 3);
      produce(new Produced(), "fixed", 3, 2, "b");
      backup("fixed", store);
      KafkaOffloadException e = assertInstanceOf(KafkaOffloadException.class, follower.awaitFailure());
      assertEquals(KafkaOffloadException.Kind.REFUSED, e.kind());
      assertTrue(e.getMessage().contains("(partitions 1-2 added to the source), target topic fixed-standby has 1")
          && e.getMessage().contains("--create-topic"), e::getMessage);
    }
    assertEquals(1, partitions("fixed-standby"), "the target's partitions are the operator's");
  }

  private static void addPartitions(String topic, int total) throws Exception {
    try (Admin admin = kafka.admin()) {
      admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(total))).all().get();
    }
  }

  private static int partitions(String topic) {
    try (Admin admin = kafka.admin()) {
      return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
    } catch (java.util.concurrent.ExecutionException | InterruptedException e) {
      throw new AssertionError("cannot describe " + topic, e);
    }
  }

  /**
   * Sends the records to partition 0 of a one-partition topic in one committed transaction, adding each
   * to {@code produced} where it was stored; returns once the commit marker is stored too (the
   * coordinator writes it after the commit returns).
   */
  private static void commit(String topic, List<ProducerRecord<byte[], byte[]>> records, Produced produced)
      throws Exception {
    long before = TopicContents.offsets(kafka.bootstrapServers(), topic, 1);
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(),
        Map.of("transactional.id", topic + "-writer"))) {
      producer.initTransactions();
      producer.beginTransaction();
      List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> acks = new ArrayList<>();
      for (ProducerRecord<byte[], byte[]> r : records) {
        acks.add(producer.send(r));
      }
      producer.commitTransaction();
      for (int i = 0; i < records.size(); i++) {
        produced.add(records.get(i), acks.get(i).get(), TimestampKind.CREATE_TIME);
      }
    }
    awaitOffsets(topic, 1, before + records.size() + 1);
  }

  @Test
  void aFollowerChecksTheTargetAsAOneShotRestoreDoes() throws Exception {
    kafka.createTopics(new NewTopic("archive", 1, (short) 1),
        new NewTopic("archive-short", 1, (short) 1).configs(Map.of("retention.ms", "60000")),
        new NewTopic("archive-small", 1, (short) 1).configs(Map.of("retention.bytes", "100")));
    long twoHoursAgo = System.currentTimeMillis() - 7_200_000L;
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      records.add(new ProducerRecord<>("archive", 0, twoHoursAgo + i, null,
          ("archived " + i).getBytes(StandardCharsets.UTF_8)));
    }
    try (KafkaProducer<byte[], byte[]> producer = Produced.producer(kafka.bootstrapServers(), Map.of())) {
      new Produced().send(producer, records, TimestampKind.CREATE_TIME);
    }
    backup("archive", store);
    for (String[] target : new String[][] {{"archive-short", "retention.ms=60000"},
        {"archive-small", "retention.bytes=100"}}) {
      try (Follower follower = Follower.start(following("archive", target[0]).build(), store)) {
        KafkaOffloadException e = assertInstanceOf(KafkaOffloadException.class, follower.awaitFailure());
        assertEquals(KafkaOffloadException.Kind.REFUSED, e.kind());
        assertTrue(e.getMessage().contains(target[1]) && e.getMessage().contains("before backup offset 0"),
            e::getMessage);
      }
      assertEquals(0, TopicContents.offsets(kafka.bootstrapServers(), target[0], 1), "nothing sent");
    }
  }

  /**
   * A source cluster's topic config that the target cluster does not accept (here forged into a newer
   * manifest: one broker serves as both) is an error Kafka does not retry: the follower ends with it.
   */
  @Test
  void aTopicConfigTheTargetRefusesEndsTheFollowerInsteadOfRetrying() throws Exception {
    kafka.createTopics(new NewTopic("tuned", 1, (short) 1));
    produce(new Produced(), "tuned", 1, 3, "t");
    backup("tuned", store);
    TopicIncarnation backedUp = KafkaBackupCatalog.scan(store, CLUSTER, "tuned").incarnations("tuned").get(0);
    ManifestKey newest = backedUp.newestManifest().orElseThrow();
    TopicManifest m = new SegmentSource(store).readManifest(newest);
    Map<String, String> configs = new TreeMap<>(m.configs());
    configs.put("cleanup.policy", "bogus");
    List<String> set = new ArrayList<>(m.topicConfigs());
    set.add("cleanup.policy");
    ManifestKey next = new ManifestKey(CLUSTER, "tuned", newest.topicId(), newest.version() + 1);
    store.putIfAbsent(next.key(), Content.of(TopicManifestCodec.encode(new TopicManifest(m.format(), m.cluster(),
        m.topic(), m.topicId(), m.partitions(), m.replicationFactor(), m.isolation(), configs, set, m.createdAt(),
        m.toolVersion()))));
    try (Follower follower = Follower.start(following("tuned", "tuned-standby").build(), store)) {
      KafkaOffloadException e = assertInstanceOf(KafkaOffloadException.class, follower.awaitFailure());
      assertEquals(KafkaOffloadException.Kind.REFUSED, e.kind(), e::getMessage);
      assertTrue(e.getMessage().startsWith("cannot create topic tuned-standby with the backed-up topic's configs")
          && e.getMessage().contains("cleanup.policy"), e::getMessage);
      assertEquals(List.of(), follower.retries, "nothing retried");
    }
  }

  @Test
  void aStoreOutageIsRetriedAndRecoveredFrom() throws Exception {
    kafka.createTopics(new NewTopic("steady", 1, (short) 1));
    Produced produced = new Produced();
    produce(produced, "steady", 1, 10, "before");
    backup("steady", store);
    try (Follower follower = Follower.start(following("steady", "steady-standby").build(), store)) {
      awaitOffsets("steady-standby", 1, 10);
      s3.stop();
      try {
        Await.until("two retries (1 s, then 2 s)", DEADLINE, () -> follower.retries.size() >= 2);
      } finally {
        s3.restart();
      }
      assertTrue(follower.retries.get(0).contains("trying again in 1 s")
          && follower.retries.get(1).contains("trying again in 2 s"), follower.retries::toString);
      produce(produced, "steady", 1, 10, "after");
      backup("steady", store);
      awaitOffsets("steady-standby", 1, 20);
      follower.stop();
    }
    TopicPartition standby = new TopicPartition("steady-standby", 0);
    try (Admin admin = kafka.admin()) {
      List<ProducerState> producers = admin.describeProducers(List.of(standby)).all().get().get(standby)
          .activeProducers();
      assertEquals(1, producers.size(), () -> "one producer for the follower's life, across the outage: " + producers);
    }
    assertEquals(produced.records(0), TopicContents.read(kafka.bootstrapServers(), "steady-standby", 1).get(0));
  }

  /**
   * Records sent while the standby's broker is down stay with the follower's one producer, which
   * delivers them once the broker is back: no second producer, each record once. (With a producer per
   * session, the delivery timed out after the broker timeout and a second producer resumed.)
   */
  @Test
  void recordsInFlightDuringABrokerOutageAreDeliveredOnceByTheSameProducer(@TempDir Path dir) throws Exception {
    kafka.createTopics(new NewTopic("pulse", 1, (short) 1));
    Produced produced = new Produced();
    produce(produced, "pulse", 1, 10, "a");
    try (ObjectStore followed = TestStores.directory(Files.createDirectories(dir.resolve("followed")));
        ObjectStore ahead = TestStores.directory(Files.createDirectories(dir.resolve("ahead")))) {
      backup("pulse", followed);
      backup("pulse", ahead);
      produce(produced, "pulse", 1, 10, "b");
      backup("pulse", ahead); // the segments the follower will find while the broker is down
      Duration brokerTimeout = Duration.ofSeconds(2);
      try (Follower follower = Follower.start(following("pulse", "pulse-standby").brokerTimeout(brokerTimeout)
          .build(), followed)) {
        awaitOffsets("pulse-standby", 1, 10);
        kafka.stop();
        try {
          for (ObjectInfo object : ahead.list("kafka/")) {
            if (followed.head(object.key()).isEmpty()) {
              try (InputStream in = ahead.get(object.key())) {
                followed.putIfAbsent(object.key(), Content.of(in.readAllBytes()));
              }
            }
          }
          // Records go to the producer, or a send waits for metadata the broker cannot give (max.block.ms)
          // and the follower retries: then it waits for the records already in flight before resuming.
          Await.until("the new records handed to the producer", DEADLINE, () -> follower.sent >= 20
              || !follower.retries.isEmpty());
          // Not a wait for an event: the fault itself. The outage must last longer than the broker timeout,
          // and a follower holding records in flight reports nothing while it lasts, by design.
          Thread.sleep(brokerTimeout.plusSeconds(1).toMillis());
        } finally {
          kafka.restart();
        }
        try {
          awaitOffsets("pulse-standby", 1, 20);
        } catch (AssertionError e) {
          throw new AssertionError(e.getMessage() + "; the follower retried " + follower.retries + " and ended with "
              + follower.run.failure(), e);
        }
        follower.stop();
      }
    }
    assertEquals(produced.records(0), TopicContents.read(kafka.bootstrapServers(), "pulse-standby", 1).get(0));
    TopicPartition standby = new TopicPartition("pulse-standby", 0);
    try (Admin admin = kafka.admin()) {
      assertEquals(1, admin.describeProducers(List.of(standby)).all().get().get(standby).activeProducers().size());
    }
  }

  /** A following restore on a thread of its own, with what its listener heard. */
  private static final class Follower implements AutoCloseable, RestoreListener {
    final List<String> retries = new CopyOnWriteArrayList<>();
    final List<String> resumed = new CopyOnWriteArrayList<>();
    volatile long sent;
    private final InBackground<RestoreSummary> run;

    private Follower(RestoreSettings settings, ObjectStore store) {
      KafkaTopicRestore restore = new KafkaTopicRestore(settings, store, this);
      this.run = InBackground.start("follower", restore::run, restore::requestStop, DEADLINE);
    }

    static Follower start(RestoreSettings settings, ObjectStore store) {
      return new Follower(settings, store);
    }

    @Override
    public void retrying(String problem, Duration wait) {
      retries.add(problem + "; trying again in " + wait.toSeconds() + " s");
    }

    @Override
    public void segmentSent(int partition, long sent) {
      this.sent = sent;
    }

    @Override
    public void resumed(int partition, long targetOffset, long sourceOffset) {
      resumed.add(partition + "@" + targetOffset + "/" + sourceOffset);
    }

    RestoreSummary stop() throws InterruptedException {
      return run.stop();
    }

    boolean running() {
      return run.running();
    }

    Throwable awaitFailure() throws InterruptedException {
      return run.awaitFailure();
    }

    @Override
    public void close() throws InterruptedException {
      run.close();
    }
  }
}
