package dev.ratisoffload.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.cli.OffloadCommand;
import dev.ratisoffload.plugin.OffloadConfigKeys;
import dev.ratisoffload.plugin.SnapshotOffload;
import dev.ratisoffload.publish.PublishResult;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.S3ObjectStore;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreUri;
import dev.ratisoffload.testkit.Await;
import dev.ratisoffload.testkit.EmbeddedKafka;
import dev.ratisoffload.testkit.EmbeddedS3;
import dev.ratisoffload.testkit.FreePorts;
import dev.ratisoffload.testkit.RatisCluster;
import io.prometheus.client.CollectorRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * Runs every script of {@code scripts/} through real JBang (fetched with Maven by {@code scripts/jbang})
 * against a 3-peer cluster with three groups that published to an embedded S3 server: the cluster
 * restore onto new addresses (then started, serving every key), the restore drill, the freshness check.
 *
 * <p>The scripts depend on the project's own artifacts ({@code //DEPS dev.ratisoffload:...}), which a
 * build without {@code install} leaves in the modules' {@code target/} only. {@link ProjectRepository}
 * lays them out in a local Maven repository under {@code target/jbang/repo}, which JBang gets as its
 * {@code JBANG_REPO}; third-party artifacts come from the user's Maven repository (read as a remote
 * repository, so it is never written) or, failing that, Maven Central.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JbangScriptsTest {

  static final String CLUSTER = "scripts";
  static final String BUCKET = "backups";
  static final int KEYS_PER_GROUP = 300;
  static final Duration LEADERS = RatisCluster.DEFAULT_TIMEOUT;
  static final long SCRIPT_TIMEOUT_SECONDS = 300;
  static final Duration SCRIPT_DEADLINE = Duration.ofSeconds(SCRIPT_TIMEOUT_SECONDS);

  @TempDir
  static Path tmp;

  Path root;
  Path jbangHome;
  Path jbangRepo;
  EmbeddedS3 s3;
  String s3Uri;
  List<RaftGroupId> groupIds;
  List<RaftPeerId> peerIds;
  final Map<RaftGroupId, Long> publishedIndex = new LinkedHashMap<>();
  final Map<RaftGroupId, List<RaftPeerId>> members = new LinkedHashMap<>();
  final Map<RaftGroupId, SortedMap<String, String>> written = new LinkedHashMap<>();

  @BeforeAll
  void publishThenStopTheCluster() throws Exception {
    root = ProjectFiles.root();
    Path target = Path.of("target").toAbsolutePath();
    jbangRepo = ProjectRepository.layOut(root, target.resolve("jbang/repo"));
    jbangHome = target.resolve("jbang/home");
    // Compiled scripts and resolved classpaths are cached by JBang; the project's jars change between
    // builds, so every run compiles afresh (the launcher, fetched once, stays).
    ProjectRepository.deleteTree(jbangHome.resolve("cache"));

    s3 = EmbeddedS3.start();
    s3.createBucket(BUCKET);
    s3Uri = "s3://" + BUCKET + "/" + CLUSTER;
    groupIds = List.of(RaftGroupId.randomId(), RaftGroupId.randomId(), RaftGroupId.randomId());
    // Multi-Raft: the last group lives on two of the three peers only.
    Map<RaftGroupId, Function<List<RaftPeer>, List<RaftPeer>>> layout = new LinkedHashMap<>();
    groupIds.forEach(g -> layout.put(g, all -> g.equals(groupIds.get(2)) ? all.subList(0, 2) : all));
    RaftProperties offloadKeys = new RaftProperties();
    OffloadConfigKeys.Cluster.setId(offloadKeys, CLUSTER);
    OffloadConfigKeys.Store.setUri(offloadKeys, s3Uri);
    Map<RaftPeerId, SnapshotOffload> offloads = new LinkedHashMap<>();
    try (ObjectStore store = openS3();
        RatisCluster cluster = RatisCluster.builder(tmp.resolve("lost"))
            .peers(3)
            .groupMembers(layout)
            .properties(peer -> new RaftProperties(offloadKeys))
            .attach(server -> {
              SnapshotOffload offload = SnapshotOffload.builder(server.raftServer(), server.properties())
                  .store(store).registry(new CollectorRegistry()).withoutSchedule().attach();
              offloads.put(server.id(), offload);
              return offload;
            })
            .build()
            .start()) {
      peerIds = cluster.peerIds();
      cluster.groups().forEach(g -> members.put(g.getGroupId(), g.getPeers().stream().map(RaftPeer::getId).toList()));
      cluster.awaitLeaders(LEADERS);
      // One group's snapshot in a later term than the others': a restore must start it in that term.
      RaftGroupId moved = groupIds.get(1);
      RaftPeerId first = cluster.leaderOf(moved);
      cluster.transferLeadership(moved, peerIds.stream().filter(p -> !p.equals(first)).findFirst().orElseThrow());
      for (RaftGroupId group : groupIds) {
        written.put(group, cluster.writeKeys(group, KEYS_PER_GROUP, "k-"));
        cluster.snapshot(group);
        PublishResult result = offloads.get(cluster.leaderOf(group)).publishNow(group);
        publishedIndex.put(group, assertInstanceOf(PublishResult.Published.class, result).id().index());
      }
    }
  }

  @AfterAll
  void stopS3() throws IOException {
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void restoreClusterRestoresEveryPeerOntoNewAddressesAndTheClusterServes() throws Exception {
    Path peersFile = tmp.resolve("restore/peers.txt");
    Files.createDirectories(peersFile.getParent());
    List<Integer> ports = FreePorts.distinct(peerIds.size());
    Map<RaftPeerId, Integer> newPorts = new LinkedHashMap<>();
    StringBuilder lines = new StringBuilder("# peer  address  storage directory\n");
    for (int i = 0; i < peerIds.size(); i++) {
      newPorts.put(peerIds.get(i), ports.get(i));
      lines.append(peerIds.get(i)).append("  127.0.0.1:").append(ports.get(i)).append("  data/")
          .append(peerIds.get(i)).append('\n');
    }
    Files.writeString(peersFile, lines);

    Run run = jbang(List.of(), "scripts/restore_cluster.java", s3Args("--peers-file", peersFile.toString()));
    assertEquals(0, run.code(), run.toString());
    for (RaftGroupId group : groupIds) {
      assertTrue(run.out().contains("verify: group " + uuid(group) + " index " + publishedIndex.get(group)),
          run.toString());
    }
    for (RaftPeerId peer : peerIds) {
      assertTrue(run.out().contains("peer " + peer + ":"), run.toString());
      assertTrue(run.out().contains("127.0.0.1:" + newPorts.get(peer)), run.toString());
      for (RaftGroupId group : groupIds) {
        assertEquals(members.get(group).contains(peer), Files.isRegularFile(peersFile.resolveSibling("data/"
            + peer + "/" + uuid(group) + "/current/raft-meta")), "restored " + group + " for " + peer
            + " exactly when its configuration names the peer");
      }
    }

    // A second run finds the group directories: refused, nothing touched.
    Run again = jbang(List.of(), "scripts/restore_cluster.java", s3Args("--peers-file", peersFile.toString()));
    assertEquals(5, again.code(), again.toString());
    assertTrue(again.err().contains("already exists; nothing was restored"), again.toString());

    try (RatisCluster cluster = RatisCluster.builder(peersFile.resolveSibling("data"))
        .existingStorage()
        .ports(newPorts)
        .build()
        .start()) {
      cluster.awaitLeaders(LEADERS);
      for (RaftGroupId group : groupIds) {
        for (RaftPeerId member : members.get(group)) {
          long applied = cluster.server(member).division(group).getStateMachine().getLastAppliedTermIndex()
              .getIndex();
          assertTrue(applied >= publishedIndex.get(group), member + " loaded " + group + " at " + applied);
        }
        SortedMap<String, String> expected = written.get(group);
        assertEquals(expected, cluster.readKeys(group, expected.keySet()), "every key of " + group);
      }
    }
  }

  @Test
  void restoreClusterChecksEveryPeersDirectoryBeforeWritingAny() throws Exception {
    Path peersFile = tmp.resolve("checked/peers.txt");
    RaftPeerId last = peerIds.stream().filter(p -> members.values().stream().anyMatch(m -> m.contains(p)))
        .reduce((a, b) -> b).orElseThrow();
    Path groupDir = Files.createDirectories(peersFile.resolveSibling("data/" + last));
    Files.createFile(groupDir.resolve("in_use.lock"));
    List<Integer> ports = FreePorts.distinct(peerIds.size());
    StringBuilder lines = new StringBuilder();
    List<RaftPeerId> lastToEnd = new ArrayList<>(peerIds);
    lastToEnd.remove(last);
    lastToEnd.add(last);
    for (int i = 0; i < lastToEnd.size(); i++) {
      lines.append(lastToEnd.get(i)).append(" 127.0.0.1:").append(ports.get(i)).append(" data/")
          .append(lastToEnd.get(i)).append('\n');
    }
    Files.writeString(peersFile, lines);

    Run run = jbang(List.of(), "scripts/restore_cluster.java", s3Args("--peers-file", peersFile.toString()));
    assertEquals(2, run.code(), run.toString());
    assertTrue(run.err().contains("storage directory " + groupDir + " is itself a Ratis group directory"),
        run.toString());
    for (RaftPeerId peer : lastToEnd) {
      for (RaftGroupId group : groupIds) {
        assertFalse(Files.exists(peersFile.resolveSibling("data/" + peer + "/" + uuid(group))),
            "nothing written for " + peer);
      }
    }
  }

  @Test
  void restoreClusterRejectsABadPeersFile() throws Exception {
    Path peersFile = Files.writeString(tmp.resolve("bad-peers.txt"), "n1 not-an-address /tmp/x\n");
    Run run = jbang(List.of(), "scripts/restore_cluster.java", s3Args("--peers-file", peersFile.toString()));
    assertEquals(2, run.code(), run.toString());
    assertTrue(run.err().contains("line 1: 'not-an-address' is not an address"), run.toString());
  }

  @Test
  void restoreDrillLoadsEveryGroupAtItsPublishedIndex() throws Exception {
    Run run = jbang(List.of("--deps", "dev.ratisoffload:reference-kv:" + ProjectRepository.VERSION),
        "scripts/restore_drill.java", s3Args("--state-machine", "dev.ratisoffload.refkv.KvStateMachine"));
    assertEquals(0, run.code(), run.toString());
    for (RaftGroupId group : groupIds) {
      long index = publishedIndex.get(group);
      Matcher line = Pattern.compile("(?m)^LOADED  group " + uuid(group) + "  generation index " + index
          + " .*applied index " + index + "$").matcher(run.out());
      assertTrue(line.find(), "group " + group + " loaded at " + index + ":\n" + run);
    }

    Run notAStateMachine = jbang(List.of(), "scripts/restore_drill.java",
        s3Args("--state-machine", "java.lang.String"));
    assertEquals(2, notAStateMachine.code(), notAStateMachine.toString());
    assertTrue(notAStateMachine.err().contains("does not implement"), notAStateMachine.toString());
  }

  @Test
  void freshnessCheckIsQuietWhenFreshAndExits6WhenStale() throws Exception {
    // Through the catalog's alias, as an operator in a clone would run it.
    Run fresh = jbang(List.of(), "freshness_check", s3Args("--max-age", "1h"));
    assertEquals(0, fresh.code(), fresh.toString());
    assertEquals("", fresh.out(), fresh.toString());

    Run verbose = jbang(List.of(), "scripts/freshness_check.java", s3Args("--max-age", "1h", "--verbose"));
    assertEquals(0, verbose.code(), verbose.toString());
    assertEquals(groupIds.size(), verbose.out().lines().filter(l -> l.startsWith("OK " + CLUSTER + " ")).count(),
        verbose.toString());

    Run stale = jbang(List.of(), "scripts/freshness_check.java", s3Args("--max-age", "1ms"));
    assertEquals(6, stale.code(), stale.toString());
    List<String> lines = stale.out().lines().toList();
    assertEquals(groupIds.size(), lines.size(), stale.toString());
    for (RaftGroupId group : groupIds) {
      assertTrue(lines.stream().anyMatch(l -> l.startsWith("STALE " + CLUSTER + " " + uuid(group) + ": ")),
          stale.toString());
    }

    Run unreachable = jbang(List.of(), "scripts/freshness_check.java",
        List.of("--store", tmp.resolve("no-such-volume").toUri().toString(), "--max-age", "1h"));
    assertEquals(4, unreachable.code(), unreachable.toString());
    assertTrue(unreachable.err().contains("freshness_check: "), unreachable.toString());
  }

  @Test
  void kafkaStandbyFollowsStopsOnSigtermAndPromotes() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      kafka.createTopics(new NewTopic("orders", 2, (short) 1));
      String store = Files.createDirectories(tmp.resolve("kafka-store")).toUri().toString();
      produceAndBackUp(kafka, store, 20);
      List<String> options = List.of("--store", store, "--cluster", "orders-prod", "--topic", "orders",
          "--bootstrap-server", kafka.bootstrapServers(), "--target-topic", "orders-standby", "--create-topic");

      List<String> follow = new ArrayList<>(List.of("follow", "--poll-interval", "200ms"));
      follow.addAll(options);
      Path followLog = Files.createTempFile(tmp, "follow", ".txt");
      Process follower = start(List.of(), "scripts/kafka_standby.java", follow, followLog);
      try {
        Await.until("the standby to hold the 40 records", SCRIPT_DEADLINE,
            () -> offsets(kafka, "orders-standby") == 40);
        follower.destroy(); // SIGTERM
        assertTrue(follower.waitFor(30, TimeUnit.SECONDS), "the follower ends on SIGTERM");
        assertEquals(0, follower.exitValue(), Files.readString(followLog));
      } finally {
        follower.destroyForcibly();
      }

      produceAndBackUp(kafka, store, 5);
      List<String> promote = new ArrayList<>(List.of("promote", "--quiet", "1s"));
      promote.addAll(options);
      Run promoted = jbang(List.of(), "kafka_standby", promote);
      assertEquals(0, promoted.code(), promoted.toString());
      assertTrue(promoted.out().contains("drained") && promoted.out().contains("promoted:"), promoted.toString());
      assertEquals(50, offsets(kafka, "orders-standby"));
    }
  }

  /** Writes {@code perPartition} records into each partition of orders and backs the topic up. */
  private static void produceAndBackUp(EmbeddedKafka kafka, String store, int perPartition) throws Exception {
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
        kafka.bootstrapServers(), "acks", "all"), new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < perPartition; i++) {
        for (int p = 0; p < 2; p++) {
          producer.send(new ProducerRecord<>("orders", p, ("k" + i).getBytes(StandardCharsets.UTF_8),
              ("order " + i).getBytes(StandardCharsets.UTF_8))).get();
        }
      }
    }
    assertEquals(0, OffloadCommand.run("kafka", "backup", "--bootstrap-server", kafka.bootstrapServers(),
        "--topic", "orders", "--store", store, "--cluster", "orders-prod", "--progress", "never"));
  }

  private static long offsets(EmbeddedKafka kafka, String topic) {
    try (Admin admin = kafka.admin()) {
      Map<TopicPartition, OffsetSpec> request = Map.of(new TopicPartition(topic, 0), OffsetSpec.latest(),
          new TopicPartition(topic, 1), OffsetSpec.latest());
      return admin.listOffsets(request).all().get().values().stream().mapToLong(i -> i.offset()).sum();
    } catch (Exception e) {
      return -1; // not created yet
    }
  }

  // ---- running JBang ----------------------------------------------------------------------

  /** A finished script: exit code, stdout, stderr. */
  record Run(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  /** The store flags for the embedded S3 server and the cluster, then {@code more}. */
  private List<String> s3Args(String... more) {
    List<String> args = new ArrayList<>(List.of("--store", s3Uri, "--endpoint", s3.endpoint().toString(),
        "--path-style", "--cluster", CLUSTER));
    args.addAll(List.of(more));
    return args;
  }

  /** {@code scripts/jbang [jbangOptions] script args}, in the repository root. */
  private Run jbang(List<String> jbangOptions, String script, List<String> args) throws Exception {
    Path out = Files.createTempFile(tmp, "out", ".txt");
    Path err = Files.createTempFile(tmp, "err", ".txt");
    Process process = start(jbangOptions, script, args, out, err);
    if (!process.waitFor(SCRIPT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      throw new IllegalStateException(script + " " + args + " did not finish in " + SCRIPT_TIMEOUT_SECONDS
          + " s:\n" + Files.readString(err, StandardCharsets.UTF_8));
    }
    Run run = new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
    System.out.println("$ " + script + " " + String.join(" ", args) + "\n" + run); // in the surefire report
    return run;
  }

  /** Starts a script with both its outputs into one file; the caller waits for it or stops it. */
  private Process start(List<String> jbangOptions, String script, List<String> args, Path output)
      throws Exception {
    return start(jbangOptions, script, args, output, output);
  }

  private Process start(List<String> jbangOptions, String script, List<String> args, Path out, Path err)
      throws Exception {
    List<String> command = new ArrayList<>(List.of("bash", root.resolve("scripts/jbang").toString(),
        "--repos", "m2cache=" + ProjectRepository.userRepository().toUri(), "--repos", "mavencentral"));
    command.addAll(jbangOptions);
    command.add(script);
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).directory(root.toFile());
    Map<String, String> env = builder.environment();
    env.put("JBANG_DIR", jbangHome.toString());
    env.put("JBANG_REPO", jbangRepo.toString());
    env.put("AWS_ACCESS_KEY_ID", s3.accessKey());
    env.put("AWS_SECRET_ACCESS_KEY", s3.secretKey());
    env.put("AWS_REGION", s3.region());
    env.put("AWS_EC2_METADATA_DISABLED", "true");
    env.put("JBANG_JAVA_OPTIONS", "-Xmx256m");
    if (out.equals(err)) {
      builder.redirectErrorStream(true);
    } else {
      builder.redirectError(err.toFile());
    }
    Process process = builder.redirectOutput(out.toFile()).start();
    process.getOutputStream().close();
    return process;
  }

  private static String uuid(RaftGroupId group) {
    return group.getUuid().toString();
  }

  private ObjectStore openS3() {
    return new S3ObjectStore(StoreUri.parse(s3Uri), S3Settings.builder()
        .endpoint(s3.endpoint()).pathStyle(true).region(s3.region())
        .credentials(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
        .build());
  }
}
