package dev.ratisoffload.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ratisoffload.cli.OffloadCommand;
import dev.ratisoffload.plugin.OffloadConfigKeys;
import dev.ratisoffload.plugin.SnapshotOffload;
import dev.ratisoffload.publish.PublishResult;
import dev.ratisoffload.publish.SkipReason;
import dev.ratisoffload.testkit.Await;
import dev.ratisoffload.testkit.EmbeddedKafka;
import dev.ratisoffload.testkit.EmbeddedS3;
import dev.ratisoffload.testkit.FreePorts;
import dev.ratisoffload.testkit.RatisCluster;
import io.prometheus.client.CollectorRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator runbook ({@code runbook/README.md}) as it is written: every line of its fenced blocks is
 * either run here, in the runbook's order, or named as run by another test ({@link Kind}); a new command
 * that nobody runs fails {@link #everyLineOfTheRunbookIsRunOrAccountedFor}.
 *
 * <p>Its configuration blocks configure a 3-peer reference key-value cluster on the offload plugin;
 * keys are written and published; then every {@code offload} command runs in-process against an
 * embedded S3 server (S3Proxy) and an embedded Kafka broker: the status, list and verify checks, a
 * restore of every peer after the cluster is destroyed (on the same addresses, then on new ones, each
 * started with RECOVER and read back), and the Kafka backup, list, verify, restore and standby. The
 * two {@code --follow} commands run in a child JVM until they have done their work and are then stopped
 * with SIGTERM, as an operator stops them. Only what must differ on a test machine is replaced: see
 * {@link #commandSubstitutions()} and {@link #configuration(RunbookText.Block)}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RunbookCommandsTest {

  /** The peer ids the runbook's restore commands name ({@code /var/lib/ratis/n1}, {@code --peers n1=...}). */
  static final List<RaftPeerId> PEERS = List.of(RaftPeerId.valueOf("n1"), RaftPeerId.valueOf("n2"),
      RaftPeerId.valueOf("n3"));
  /** The buckets the runbook's stores name; they stay, created in the embedded S3 server. */
  static final List<String> BUCKETS = List.of("acme-ratis-backups", "backups");
  static final String TOPIC = "orders";
  static final int GROUPS = 2;
  static final int KEYS_PER_GROUP = 100;
  static final int PARTITIONS = 2;
  static final int RECORDS_PER_PARTITION = 20;
  static final Duration LEADERS = RatisCluster.DEFAULT_TIMEOUT;
  /** {@code kafka backup --follow} stores a segment once it is {@code --segment-age} (default 30 s) old. */
  static final Duration FOLLOW_DEADLINE = Duration.ofSeconds(120);
  static final Pattern KEY_VALUE = Pattern.compile("(offload\\.[a-z0-9.-]+) = (\\S+)");

  /** What each line of the runbook's fenced blocks is, and which test runs it. */
  enum Kind {
    CONFIGURATION("configures the plugin on the cluster of RunbookCommandsTest"),
    JAVA("the call RunbookCommandsTest attaches the plugin with"),
    OFFLOAD("run by RunbookCommandsTest"),
    SCRIPT("run through JBang by JbangScriptsTest"),
    DRILL("the drill, run by DrillTest"),
    PEERS_FILE("the contents of a peers file (JbangScriptsTest writes one), not a command");

    final String runBy;

    Kind(String runBy) {
      this.runBy = runBy;
    }
  }

  private static final Pattern OFFLOAD_LINE = Pattern.compile("^(?:scripts/)?offload (.*)$");
  private static final Pattern SCRIPT_LINE = Pattern.compile("^scripts/jbang (?:.* )?scripts/([a-z_]+)\\.java(?: .*)?$");
  private static final Pattern CRONTAB_LINE = Pattern.compile("^(?:[0-9*/,-]+ ){5}cd \\S+ && (.*)$");
  private static final Pattern DRILL_LINE = Pattern.compile("^mvn .*-pl drill .*exec:java .*-Dexec\\.args=\".*\"$");
  private static final Pattern PEERS_FILE_LINE = Pattern.compile("^[A-Za-z0-9_-]+ +[A-Za-z0-9.-]+:[0-9]+ +/\\S+$");

  /** The kind of a runbook line, or null when no test runs it. */
  static Kind classify(RunbookText.Line line) {
    String text = line.text();
    if (line.info().equals("properties")) {
      return KEY_VALUE.matcher(text).matches() ? Kind.CONFIGURATION : null;
    }
    if (line.info().equals("java")) {
      return text.startsWith("SnapshotOffload offload = SnapshotOffload.attach(server, properties);") ? Kind.JAVA : null;
    }
    Matcher cron = CRONTAB_LINE.matcher(text);
    if (cron.matches()) { // a crontab entry runs its command: that command must be run by a test
      return classify(new RunbookText.Line(line.line(), line.info(), cron.group(1)));
    }
    if (OFFLOAD_LINE.matcher(text).matches()) {
      return Kind.OFFLOAD;
    }
    if (SCRIPT_LINE.matcher(text).matches()) {
      return Kind.SCRIPT;
    }
    if (DRILL_LINE.matcher(text).matches()) {
      return Kind.DRILL;
    }
    if (PEERS_FILE_LINE.matcher(text).matches()) {
      return Kind.PEERS_FILE;
    }
    return null;
  }

  @TempDir
  static Path tmp;

  Path root;
  List<RunbookText.Block> blocks;
  final Map<String, String> savedProperties = new LinkedHashMap<>();
  EmbeddedS3 s3;
  EmbeddedKafka kafka;
  EmbeddedKafka standby;

  // The Ratis cluster the configuration blocks describe, and what it published.
  final List<RaftGroupId> groupIds = new ArrayList<>();
  final Map<RaftGroupId, SortedMap<String, String>> written = new LinkedHashMap<>();
  RatisCluster cluster;
  Map<RaftPeerId, Integer> oldPorts;
  final Map<RaftPeerId, Integer> newPorts = new LinkedHashMap<>();
  Path restoreRoot;
  int restores;
  /** The S3 configuration blocks that set server-side encryption, as written (with the endpoint). */
  final List<Map<String, String>> encryptedAsWritten = new ArrayList<>();

  // The topic the Kafka commands back up and restore.
  SortedMap<Integer, List<TopicRecords.Stored>> originalRecords;

  @BeforeAll
  void startServers() throws Exception {
    root = ProjectFiles.root();
    blocks = RunbookText.blocks(Files.readString(root.resolve("runbook/README.md")));
    // The command line and the plugin find credentials and a region where the AWS SDK's default chains look.
    for (Map.Entry<String, String> p : Map.of("aws.accessKeyId", EmbeddedS3.ACCESS_KEY,
        "aws.secretAccessKey", EmbeddedS3.SECRET_KEY, "aws.region", EmbeddedS3.REGION).entrySet()) {
      savedProperties.put(p.getKey(), System.setProperty(p.getKey(), p.getValue()));
    }
    s3 = EmbeddedS3.start();
    BUCKETS.forEach(s3::createBucket);
    kafka = EmbeddedKafka.start();
    List<Integer> ports = FreePorts.distinct(PEERS.size());
    for (int i = 0; i < PEERS.size(); i++) {
      newPorts.put(PEERS.get(i), ports.get(i));
    }
  }

  @AfterAll
  void stopServers() throws Exception {
    try (AutoCloseable a = s3; AutoCloseable b = kafka; AutoCloseable c = standby; AutoCloseable d = cluster) {
      savedProperties.forEach((key, value) -> {
        if (value == null) {
          System.clearProperty(key);
        } else {
          System.setProperty(key, value);
        }
      });
    }
  }

  // ---- what must differ on a test machine ---------------------------------------------------

  /** One replacement in a runbook command: the runbook's value, what replaces it, and why. */
  record Substitution(Pattern runbook, Function<MatchResult, String> replacement, String why) {}

  /**
   * The whole substitution table of the commands. Everything else (bucket names, prefixes, cluster ids,
   * topics, flags) is run as written.
   */
  List<Substitution> commandSubstitutions() {
    return List.of(
        new Substitution(Pattern.compile("(--store s3://\\S+)"),
            m -> m.group(1) + " --endpoint " + s3.endpoint() + " --path-style",
            "an s3:// store is the embedded S3 server, which holds the runbook's buckets: its endpoint, path-style"
                + " (credentials and region come from the SDK's chains, as in production)"),
        new Substitution(Pattern.compile("\\bkafka1:9092\\b"), m -> kafka.bootstrapServers(),
            "the Kafka cluster whose topic is backed up (and lost) is the embedded broker"),
        new Substitution(Pattern.compile("\\bstandby1:9092\\b"), m -> standby().bootstrapServers(),
            "the standby cluster is a second embedded broker"),
        new Substitution(Pattern.compile("/var/lib/ratis/(n[0-9]+)"),
            m -> restoreRoot.resolve(m.group(1)).toString(),
            "a peer's storage directory is a scratch directory of the restore procedure"),
        new Substitution(Pattern.compile("\\b(n[0-9]+)=10\\.0\\.2\\.[0-9]+:9872\\b"),
            m -> m.group(1) + "=127.0.0.1:" + newPorts.get(RaftPeerId.valueOf(m.group(1))),
            "a peer's new address is a free port on 127.0.0.1"));
  }

  /** The command line with the substitutions applied, split into arguments (without the leading offload). */
  List<String> arguments(String command) {
    Matcher offload = OFFLOAD_LINE.matcher(command);
    assertTrue(offload.matches(), command);
    String text = offload.group(1);
    for (Substitution s : commandSubstitutions()) {
      text = s.runbook().matcher(text).replaceAll(m -> Matcher.quoteReplacement(s.replacement().apply(m)));
    }
    return List.of(text.trim().split("\\s+"));
  }

  /**
   * A configuration block's keys, with what must differ on a test machine: an S3 block gets the two
   * keys the runbook says an S3-compatible server needs ({@code offload.s3.endpoint},
   * {@code offload.s3.path-style}); the directory becomes a scratch directory; and server-side
   * encryption is off, because S3Proxy answers any {@code x-amz-server-side-encryption} header,
   * {@code aws:kms} and {@code AES256} alike, with 501 Not Implemented (seen with S3Proxy 3.3.0; the
   * block as written is attached too, and must be refused by its preflight). The region stays: S3Proxy
   * accepts signatures for any region.
   */
  Map<String, String> configuration(RunbookText.Block block) throws IOException {
    Map<String, String> keys = new LinkedHashMap<>();
    for (RunbookText.Line line : RunbookText.lines(block)) {
      Matcher m = KEY_VALUE.matcher(line.text());
      assertTrue(m.matches(), "a configuration line is offload.KEY = VALUE: " + line);
      keys.put(m.group(1), m.group(2));
    }
    String store = keys.get(OffloadConfigKeys.Store.URI_KEY);
    assertNotNull(store, "the block at line " + block.line() + " names its store");
    if (store.startsWith("s3://")) {
      keys.put(OffloadConfigKeys.S3.ENDPOINT_KEY, s3.endpoint().toString());
      keys.put(OffloadConfigKeys.S3.PATH_STYLE_KEY, "true");
      if (keys.containsKey(OffloadConfigKeys.S3.SSE_KEY)) {
        Map<String, String> asWritten = new LinkedHashMap<>(keys);
        encryptedAsWritten.add(asWritten);
        keys.put(OffloadConfigKeys.S3.SSE_KEY, "none");
        keys.remove(OffloadConfigKeys.S3.SSE_KMS_KEY_ID_KEY);
      }
    } else if (store.equals("file:///mnt/ratis-backups")) {
      keys.put(OffloadConfigKeys.Store.URI_KEY, Files.createDirectories(tmp.resolve("mnt-ratis-backups")).toUri()
          .toString());
    } else {
      fail("a store the test has no stand-in for: " + store);
    }
    return keys;
  }

  private static RaftProperties properties(Map<String, String> keys) {
    RaftProperties properties = new RaftProperties();
    keys.forEach(properties::set);
    return properties;
  }

  // ---- the tests ---------------------------------------------------------------------------

  @Test
  @Order(1)
  void everyLineOfTheRunbookIsRunOrAccountedFor() throws Exception {
    Map<Kind, Integer> counts = new TreeMap<>();
    List<String> unrun = new ArrayList<>();
    String jbangTest = Files.readString(root.resolve("drill/src/test/java/dev/ratisoffload/drill/JbangScriptsTest.java"));
    for (RunbookText.Block block : blocks) {
      for (RunbookText.Line line : RunbookText.lines(block)) {
        Kind kind = classify(line);
        if (kind == null) {
          unrun.add("the runbook's command '" + line.text() + "' (line " + line.line() + ") is run by no test");
          continue;
        }
        counts.merge(kind, 1, Integer::sum);
        System.out.println(line + "\n    " + kind.runBy);
        if (kind == Kind.SCRIPT) {
          Matcher script = Pattern.compile("scripts/([a-z_]+)\\.java").matcher(line.text());
          assertTrue(script.find(), line.toString());
          String name = script.group(1);
          assertTrue(Files.isRegularFile(root.resolve("scripts/" + name + ".java")), "no script " + line);
          if (!jbangTest.contains("\"scripts/" + name + ".java\"") && !jbangTest.contains("\"" + name + "\"")) {
            unrun.add("the runbook's script " + name + " (line " + line.line() + ") is run by no test: JbangScriptsTest"
                + " does not run it");
          }
        }
      }
    }
    assertEquals(List.of(), unrun);
    // The parser found the runbook's blocks (a broken fence would hide some of them).
    assertTrue(counts.getOrDefault(Kind.OFFLOAD, 0) >= 10, counts.toString());
    assertTrue(counts.getOrDefault(Kind.CONFIGURATION, 0) >= 10, counts.toString());
    assertTrue(counts.getOrDefault(Kind.SCRIPT, 0) >= 3, counts.toString());
    assertEquals(1, counts.getOrDefault(Kind.JAVA, 0), counts.toString());
    assertTrue(counts.getOrDefault(Kind.DRILL, 0) >= 1, counts.toString());
  }

  @Test
  @Order(2)
  void aFenceWithTextAfterItIsAnError() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> RunbookText.blocks("```\noffload list\n``` and more text\n\n```\noffload verify\n```\n"));
    assertTrue(e.getMessage().startsWith("line 3: "), e.getMessage());
    List<RunbookText.Line> lines = RunbookText.allLines(
        "   ```\n   offload a \\\n       --b c   # why\n   ```\n```properties\nx = 1\n```\n");
    assertEquals(List.of(new RunbookText.Line(2, "", "offload a --b c"), new RunbookText.Line(6, "properties", "x = 1")),
        lines);
  }

  @Test
  @Order(3)
  void runsEveryOffloadCommandInTheRunbooksOrder() throws Exception {
    List<Map<String, String>> configurations = new ArrayList<>();
    int ran = 0;
    for (RunbookText.Block block : blocks) {
      if (block.info().equals("properties")) {
        configurations.add(configuration(block));
        continue;
      }
      for (RunbookText.Line line : RunbookText.lines(block)) {
        if (classify(line) != Kind.OFFLOAD) {
          continue;
        }
        List<String> words = List.of(line.text().split("\\s+")); // offload SUBCOMMAND ...
        long started = System.nanoTime();
        String step = Set.of("kafka", "store").contains(words.get(1)) ? words.get(1) + " " + words.get(2)
            : words.get(1);
        switch (step) {
          case "status", "list", "verify" -> {
            publish(configurations);
            Run run = run(arguments(line.text()));
            for (RaftGroupId group : groupIds) {
              assertTrue(step.equals("status") || run.out().contains(group.getUuid().toString()),
                  line + " names group " + group + "\n" + run);
            }
          }
          case "store check" -> assertTrue(run(arguments(line.text())).out()
              .contains("has every property publishing relies on"));
          case "restore" -> restoreEveryPeerAndStart(line);
          case "kafka backup" -> kafkaBackup(line);
          case "kafka list" -> {
            Run run = run(arguments(line.text()));
            assertTrue(run.out().contains("topic " + TOPIC + " (id ")
                && run.out().contains(PARTITIONS * RECORDS_PER_PARTITION + " records"), run.toString());
          }
          case "kafka verify" -> assertTrue(run(arguments(line.text())).out().contains("verified:"));
          case "kafka gc" -> {
            // The backup is minutes old: the runbook's 30 days keep every segment, applied or not.
            Run run = run(arguments(line.text()));
            assertTrue(run.out().contains("nothing to remove")
                && !run.out().contains("would remove") && !run.out().contains("removed "), run.toString());
          }
          case "kafka restore" -> {
            if (words.contains("--follow")) {
              kafkaStandby(line);
            } else {
              kafkaRestoreTheLostTopic(line);
            }
          }
          default -> fail("the runbook's command '" + line.text() + "' (line " + line.line()
              + ") has no step in RunbookCommandsTest");
        }
        ran++;
        System.out.printf("ran line %d in %.1f s: %s%n", line.line(), (System.nanoTime() - started) / 1e9,
            line.text());
      }
    }
    assertTrue(ran >= 10, "ran the runbook's offload commands: " + ran);
    assertEquals(2, restores, "both restore procedures ran");
  }

  // ---- steps -------------------------------------------------------------------------------

  /**
   * Section 1 and the state section 2 checks: a 3-peer cluster whose every server carries the plugin with
   * the runbook's production configuration (the S3 block with the most keys), attached as section 1
   * says; keys written, a snapshot taken and published by each group's leader. Every other configuration
   * block is then attached on every peer too: it must attach, find its store writable and publish there
   * (or find the generation already stored).
   */
  private void publish(List<Map<String, String>> configurations) throws Exception {
    if (cluster != null) {
      return;
    }
    assertEquals(3, configurations.size(), "the runbook's configuration blocks: minimal S3, production, directory");
    Map<String, String> production = configurations.stream()
        .filter(c -> c.get(OffloadConfigKeys.Store.URI_KEY).startsWith("s3://"))
        .max((a, b) -> Integer.compare(a.size(), b.size())).orElseThrow();
    for (int i = 0; i < GROUPS; i++) {
      groupIds.add(RaftGroupId.randomId());
    }
    Map<RaftPeerId, SnapshotOffload> offloads = new LinkedHashMap<>();
    cluster = RatisCluster.builder(tmp.resolve("lost"))
        .peerIds(PEERS)
        .groupIds(groupIds)
        .properties(peer -> properties(production))
        .attach(server -> {
          // The runbook's SnapshotOffload.attach(server, properties), with a registry per server: three
          // servers share this JVM, and Prometheus's default registry takes each metric name once.
          SnapshotOffload offload = SnapshotOffload.attach(server.raftServer(), server.properties(),
              new CollectorRegistry());
          offloads.put(server.id(), offload);
          return offload;
        })
        .build()
        .start();
    oldPorts = cluster.ports();
    cluster.awaitLeaders(LEADERS);
    for (RaftGroupId group : groupIds) {
      written.put(group, cluster.writeKeys(group, KEYS_PER_GROUP, "k-"));
      cluster.snapshot(group);
      assertStored(publishNow(offloads.get(cluster.leaderOf(group)), group), "production");
    }

    // As written, an encrypting block that requires the preflight cannot attach to S3Proxy: the probe is
    // refused (501), as the runbook says of S3-compatible servers.
    for (Map<String, String> asWritten : encryptedAsWritten) {
      if (!"true".equals(asWritten.get(OffloadConfigKeys.Preflight.REQUIRED_KEY))) {
        continue;
      }
      Map<String, String> keys = new LinkedHashMap<>(asWritten);
      keys.put(OffloadConfigKeys.Spool.DIR_KEY, tmp.resolve("spool-encrypted").toString());
      IllegalStateException refused = assertThrows(IllegalStateException.class, () -> SnapshotOffload.attach(
          cluster.server(PEERS.get(0)).raftServer(), properties(keys), new CollectorRegistry()).close());
      assertTrue(refused.getMessage().contains("NotImplemented")
          && refused.getMessage().contains(OffloadConfigKeys.Preflight.REQUIRED_KEY), refused.getMessage());
    }

    for (Map<String, String> configuration : configurations) {
      if (configuration == production) {
        continue;
      }
      for (RaftPeerId peer : PEERS) {
        Map<String, String> keys = new LinkedHashMap<>(configuration);
        // A second plugin on the same server pins snapshots in a spool directory of its own.
        keys.put(OffloadConfigKeys.Spool.DIR_KEY, tmp.resolve("spool-" + peer + "-" + configurations.indexOf(configuration))
            .toString());
        CollectorRegistry registry = new CollectorRegistry();
        try (SnapshotOffload offload = SnapshotOffload.attach(cluster.server(peer).raftServer(), properties(keys),
            registry)) {
          assertEquals(1.0, registry.getSampleValue("ratis_offload_store_up"), "store up for " + keys);
          for (RaftGroupId group : groupIds) {
            if (cluster.leaderOf(group).equals(peer)) {
              assertStored(publishNow(offload, group), keys.toString());
            }
          }
        }
      }
    }
  }

  /**
   * Published now, or found already stored: by the schedule (its first pass comes after a random jitter)
   * or, for a second block naming the same store, by the first.
   */
  private static void assertStored(PublishResult result, String configuration) {
    assertTrue(result instanceof PublishResult.Published
        || result instanceof PublishResult.Skipped s && s.reason() == SkipReason.UNCHANGED,
        configuration + ": " + result);
  }

  /** Publishes now; a publish already in flight (the schedule's) is waited for. */
  private static PublishResult publishNow(SnapshotOffload offload, RaftGroupId group) {
    return Await.value("a publish of " + group, Duration.ofSeconds(60), () -> {
      PublishResult result = offload.publishNow(group);
      return result instanceof PublishResult.Skipped s && s.reason() == SkipReason.IN_FLIGHT
          ? Optional.empty() : Optional.of(result);
    });
  }

  /**
   * Section 4: the command, shown for peer n1, "for each peer", into the storage directories of a cluster
   * that is gone; then every peer started with RECOVER (on the addresses the command gave them) serves
   * every key the generation holds and takes new writes.
   */
  private void restoreEveryPeerAndStart(RunbookText.Line line) throws Exception {
    if (cluster != null) { // the disaster: every peer stopped, its storage lost
      cluster.close();
      cluster = null;
      ProjectRepository.deleteTree(tmp.resolve("lost"));
    }
    assertTrue(line.text().contains("--peer n1 --data-dir /var/lib/ratis/n1"), "the restore is shown for peer n1: "
        + line);
    restoreRoot = tmp.resolve("restore-" + ++restores);
    for (RaftPeerId peer : PEERS) {
      run(arguments(line.text().replace("--peer n1 --data-dir /var/lib/ratis/n1",
          "--peer " + peer + " --data-dir /var/lib/ratis/" + peer)));
    }
    Map<RaftPeerId, Integer> ports = line.text().contains("--peers") ? newPorts : oldPorts;
    try (RatisCluster restored = RatisCluster.builder(restoreRoot).existingStorage().ports(ports).build().start()) {
      assertEquals(PEERS, restored.peerIds());
      restored.awaitLeaders(LEADERS);
      for (RaftGroupId group : groupIds) {
        SortedMap<String, String> expected = written.get(group);
        assertEquals(expected, restored.readKeys(group, expected.keySet()), "every key of " + group);
        SortedMap<String, String> more = restored.writeKeys(group, 5, "after-");
        assertEquals(more, restored.readKeys(group, more.keySet()), "new writes to " + group);
      }
    }
  }

  /** The Kafka section: records in the topic, backed up continuously until SIGTERM. */
  private void kafkaBackup(RunbookText.Line line) throws Exception {
    TopicRecords.create(kafka.bootstrapServers(), TOPIC, PARTITIONS);
    TopicRecords.produce(kafka.bootstrapServers(), TOPIC, PARTITIONS, RECORDS_PER_PARTITION);
    originalRecords = TopicRecords.readAll(kafka.bootstrapServers(), TOPIC);
    assertTrue(line.text().contains("--follow"), line.toString());
    String last = String.format("-%019d.segment", RECORDS_PER_PARTITION - 1);
    runUntilSigterm(arguments(line.text()), "the backup to store every record", () -> {
      try (Stream<Path> files = Files.walk(s3.dataDir().resolve("backups"))) {
        return files.filter(p -> p.getFileName().toString().endsWith(last)).count() == PARTITIONS;
      }
    }, TOPIC);
  }

  /** "Restore a lost topic": the topic is deleted, then restored in place at the same offsets. */
  private void kafkaRestoreTheLostTopic(RunbookText.Line line) throws Exception {
    TopicRecords.deleteIfExists(kafka.bootstrapServers(), TOPIC);
    // deleteIfExists returns once the cluster no longer lists the topic: the restore creates it anew.
    Run run = runAnyExit(arguments(line.text()));
    assertEquals(0, run.code(), run.toString());
    assertTrue(run.out().contains("restored " + PARTITIONS * RECORDS_PER_PARTITION + " records of " + TOPIC),
        run.toString());
    assertEquals(List.of(), TopicRecords.differences(originalRecords,
        TopicRecords.readAll(kafka.bootstrapServers(), TOPIC)));
  }

  /** "Keep a standby": the follower fills the standby cluster's topic, then stops on SIGTERM. */
  private void kafkaStandby(RunbookText.Line line) throws Exception {
    List<String> args = arguments(line.text());
    runUntilSigterm(args, "the standby to hold every record",
        () -> endOffsets(standby, TOPIC) == PARTITIONS * RECORDS_PER_PARTITION, "stopped after restoring");
    assertEquals(List.of(), TopicRecords.differences(originalRecords,
        TopicRecords.readAll(standby.bootstrapServers(), TOPIC)));
  }

  /** The sum of the topic's end offsets; -1 while the topic does not exist. */
  private static long endOffsets(EmbeddedKafka broker, String topic) throws Exception {
    try (Admin admin = broker.admin()) {
      if (!admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic)) {
        return -1;
      }
      Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
      for (int p = 0; p < PARTITIONS; p++) {
        latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
      return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values().stream()
          .mapToLong(ListOffsetsResult.ListOffsetsResultInfo::offset).sum();
    }
  }

  /**
   * The standby cluster: a broker of its own rather than another topic on the first broker. The command
   * names no {@code --target-topic}, so the standby's topic is {@code orders} like the lost one (which is
   * what keeps consumers' committed offsets meaningful after a promotion); on the first broker, which
   * already holds the restored {@code orders}, it would rightly be refused as not empty. It costs one
   * broker start (a few seconds) and keeps the command as written.
   */
  private EmbeddedKafka standby() {
    if (standby == null) {
      try {
        standby = EmbeddedKafka.start();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return standby;
  }

  // ---- running offload ---------------------------------------------------------------------

  record Run(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  /** Runs {@code offload} in-process and expects exit 0. */
  private static Run run(List<String> args) {
    Run run = runAnyExit(args);
    assertEquals(0, run.code(), "offload " + String.join(" ", args) + "\n" + run);
    return run;
  }

  private static Run runAnyExit(List<String> args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = OffloadCommand.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
    Run run = new Run(code, out.toString(), err.toString());
    System.out.println("$ offload " + String.join(" ", args) + "\n" + run); // in the surefire report
    return run;
  }

  /** A condition checked while a following command runs; one that cannot be checked yet is false. */
  @FunctionalInterface
  interface Check {
    boolean done() throws Exception;
  }

  private static boolean check(Check check) {
    try {
      return check.done();
    } catch (Exception e) {
      return false;
    }
  }

  /**
   * Runs a following command in a child JVM (SIGTERM reaches only a process of its own) until
   * {@code done}, then stops it with SIGTERM and expects exit 0 and {@code printed} in its output.
   */
  private void runUntilSigterm(List<String> args, String what, Check done, String printed) throws Exception {
    Path output = Files.createTempFile(tmp, "follow", ".txt");
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-Daws.accessKeyId=" + s3.accessKey(), "-Daws.secretAccessKey=" + s3.secretKey(),
        "-Daws.region=" + s3.region(), "-Daws.disableEc2Metadata=true",
        "-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
        OffloadCommand.class.getName()));
    command.addAll(args);
    System.out.println("$ offload " + String.join(" ", args) + " (child JVM, until SIGTERM)");
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    try {
      try {
        Await.until(what, FOLLOW_DEADLINE, () -> {
          if (!process.isAlive()) {
            throw new AssertionError("ended with exit " + process.exitValue() + " before " + what);
          }
          return check(done);
        });
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + ":\n" + Files.readString(output), e);
      }
      process.destroy(); // SIGTERM
      assertTrue(process.waitFor(30, TimeUnit.SECONDS), "ends within 30 s of SIGTERM");
      String text = Files.readString(output);
      System.out.println(text);
      assertEquals(0, process.exitValue(), text);
      assertTrue(text.contains(printed), text);
    } finally {
      process.destroyForcibly();
    }
  }
}
