package dev.ratisoffload.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.GenerationReader.StoredGeneration;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.store.ForwardingObjectStore;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.refkv.KvClient;
import dev.ratisoffload.testkit.Await;
import dev.ratisoffload.testkit.EmbeddedS3;
import dev.ratisoffload.testkit.FreePorts;
import dev.ratisoffload.testkit.RatisCluster;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.HTTPServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.storage.RaftStorage.StartupOption;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin running unattended: a 3-peer, three-group cluster under writes, a short interval, metrics
 * scraped over HTTP, a leadership transfer, the S3 server stopped and restarted, a restart of the
 * whole cluster. The steps build on each other, so they run in order on one cluster.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ScheduledOffloadEndToEndTest {

  private static final String CLUSTER_ID = "scheduled";
  private static final int CONCURRENCY = 1;
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int KEEP_LAST = 3;

  @TempDir
  static Path tmp;

  private EmbeddedS3 s3;
  private RatisCluster cluster;
  private ObjectStore reader;
  /** One per peer: the limit is per server. */
  private final Map<RaftPeerId, GroupConcurrencyProbe> probes = new ConcurrentHashMap<>();
  private final Map<RaftPeerId, Scrape> scrapes = new ConcurrentHashMap<>();
  private final ByteArrayOutputStream logs = new ByteArrayOutputStream();
  private PrintStream originalErr;
  private final AtomicBoolean writing = new AtomicBoolean(true);
  private Thread writer;
  private RaftPeerId busyPeer;

  /** A peer's metrics endpoint and registry. */
  private record Scrape(HTTPServer server, int port) {}

  @BeforeAll
  void start() throws IOException {
    originalErr = System.err;
    System.setErr(new PrintStream(new TeeStream(originalErr, logs), true));
    s3 = EmbeddedS3.start(tmp.resolve("s3"));
    s3.createBucket("backups");
    System.setProperty("aws.accessKeyId", s3.accessKey());
    System.setProperty("aws.secretAccessKey", s3.secretKey());
    RaftProperties keys = new RaftProperties();
    OffloadConfigKeys.Store.setUri(keys, "s3://backups/scheduled");
    OffloadConfigKeys.Cluster.setId(keys, CLUSTER_ID);
    OffloadConfigKeys.S3.setEndpoint(keys, s3.endpoint().toString());
    OffloadConfigKeys.S3.setPathStyle(keys, true);
    keys.set(OffloadConfigKeys.Schedule.INTERVAL_KEY, "700ms");
    keys.set(OffloadConfigKeys.Schedule.JITTER_KEY, "200ms");
    OffloadConfigKeys.Schedule.setConcurrency(keys, CONCURRENCY);
    OffloadConfigKeys.Snapshot.setTriggerGap(keys, 20);
    keys.set(OffloadConfigKeys.Upload.CHUNK_SIZE_KEY, "4KB");
    OffloadConfigKeys.Retention.setKeepLast(keys, KEEP_LAST);
    keys.set(OffloadConfigKeys.Scrub.INTERVAL_KEY, "2s");
    keys.set(OffloadConfigKeys.Retention.CHUNK_GRACE_KEY, "1min"); // the minimum
    OffloadSettings settings = OffloadSettings.read(keys);
    reader = settings.store().open();
    cluster = RatisCluster.builder(tmp.resolve("ratis"))
        .peers(3)
        .groups(3)
        .properties(peer -> new RaftProperties(keys))
        .attach(server -> {
          CollectorRegistry registry = new CollectorRegistry();
          int port = scrapes.containsKey(server.id()) ? scrapes.get(server.id()).port() : FreePorts.next();
          HTTPServer http = new HTTPServer(new InetSocketAddress("127.0.0.1", port), registry, true);
          scrapes.put(server.id(), new Scrape(http, port));
          // The same keys build the store; the probe around it measures concurrent publishes.
          OffloadSettings s = OffloadSettings.read(server.properties());
          ObjectStore store = probes.computeIfAbsent(server.id(), id -> new GroupConcurrencyProbe())
              .wrap(s.store().open());
          SnapshotOffload offload = SnapshotOffload.builder(server.raftServer(), server.properties())
              .registry(registry).store(store).attach();
          return () -> {
            offload.close();
            store.close();
            http.close();
          };
        })
        .build()
        .start();
    cluster.awaitLeaders(RatisCluster.DEFAULT_TIMEOUT);
    // One peer leads every group, so its concurrency limit is what orders their publishes.
    busyPeer = cluster.peerIds().get(0);
    for (RaftGroupId group : cluster.groupIds()) {
      if (!cluster.leaderOf(group).equals(busyPeer)) {
        cluster.transferLeadership(group, busyPeer);
      }
    }
    writer = new Thread(this::writeContinuously, "test-writer");
    writer.setDaemon(true);
    writer.start();
  }

  private void writeContinuously() {
    int round = 0;
    while (writing.get()) {
      for (RaftGroupId group : cluster.groupIds()) {
        try {
          cluster.writeKeys(group, 30, "w" + round + "-");
        } catch (IOException | RuntimeException e) {
          // a leader change or a restart in progress; the next round retries
        }
      }
      round++;
    }
  }

  @AfterAll
  void stop() throws Exception {
    writing.set(false);
    if (writer != null) {
      writer.join(30_000);
    }
    if (cluster != null) {
      cluster.close();
    }
    reader.close();
    s3.close();
    System.setErr(originalErr);
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
  }

  private List<StoredGeneration> generations(RaftGroupId group) {
    return new GenerationReader(reader).list(Layout.manifestPrefix(CLUSTER_ID, group.getUuid().toString()));
  }

  @Test
  @Order(1)
  void everyGroupGetsGenerationsFromItsLeaderWithinTheConcurrencyLimit() {
    for (RaftGroupId group : cluster.groupIds()) {
      Await.until("two generations of " + group, WAIT, () -> generations(group).size() >= 2);
    }
    for (RaftGroupId group : cluster.groupIds()) {
      Map<Long, String> publisherByTerm = new HashMap<>();
      for (StoredGeneration g : generations(group)) {
        Manifest m = verifyUnlessCollected(g);
        if (m == null) {
          continue;
        }
        String previous = publisherByTerm.putIfAbsent(m.publisher().leaderTerm(), m.publisher().peer());
        assertTrue(previous == null || previous.equals(m.publisher().peer()),
            "one publisher per term: " + previous + " and " + m.publisher());
      }
    }
    assertTrue(probes.get(busyPeer).max() >= 1, "the probe saw the publishes of " + busyPeer);
    probes.forEach((peer, probe) -> assertTrue(probe.max() <= CONCURRENCY,
        peer + " published at most " + CONCURRENCY + " groups at once, saw " + probe.max()));
  }

  @Test
  @Order(2)
  void metricsAreScrapedOverHttp() throws Exception {
    RaftGroupId group = cluster.groupIds().get(0);
    RaftPeerId leader = cluster.leaderOf(group);
    RaftPeerId follower = cluster.peerIds().stream().filter(p -> !p.equals(leader)).findFirst().orElseThrow();
    String uuid = group.getUuid().toString();
    Await.until("the leader's published count", WAIT,
        () -> metric(leader, "ratis_offload_published_total", Map.of("group", uuid)) >= 1);
    assertTrue(metric(leader, "ratis_offload_last_success_timestamp_seconds", Map.of("group", uuid)) > 0);
    assertTrue(metric(leader, "ratis_offload_last_published_index", Map.of("group", uuid)) > 0);
    assertEquals(1.0, metric(leader, "ratis_offload_store_up", Map.of()));
    assertTrue(metric(leader, "ratis_offload_uploaded_bytes_total", Map.of("group", uuid)) > 0);
    Await.until("the follower's not_leader skips", WAIT,
        () -> metric(follower, "ratis_offload_skipped_total", Map.of("group", uuid, "reason", "not_leader")) >= 1);
    // A group this follower never published: every series exists, at zero.
    assertEquals(0.0, metric(follower, "ratis_offload_last_success_timestamp_seconds", Map.of("group", uuid)));
    assertEquals(0.0, metric(follower, "ratis_offload_published_total", Map.of("group", uuid)));
    assertEquals(0.0, metric(follower, "ratis_offload_failed_total", Map.of("group", uuid)));
    assertEquals(0.0, metric(follower, "ratis_offload_skipped_total", Map.of("group", uuid, "reason", "in_flight")));
    assertTrue(metric(leader, "ratis_offload_skipped_total", Map.of("group", uuid, "reason", "unchanged")) >= 0);
    // Freshness is read from the store by every peer: the follower reports a generation that is stored.
    Await.until("the follower reports the group's newest generation", WAIT,
        () -> storedCreationTimes(group).contains(
            metric(follower, "ratis_offload_newest_generation_timestamp_seconds", Map.of("group", uuid))));
    assertEquals(1.0, metric(follower, "ratis_offload_store_up", Map.of()));
  }

  /** The creation time, in Unix seconds, of each generation of the group the store holds now. */
  private Set<Double> storedCreationTimes(RaftGroupId group) {
    Set<Double> times = new java.util.HashSet<>();
    for (StoredGeneration g : generations(group)) {
      Manifest m = verifyUnlessCollected(g);
      if (m != null) {
        times.add(m.createdAt().toEpochMilli() / 1000.0);
      }
    }
    return times;
  }

  @Test
  @Order(3)
  void retentionKeepsStorageBoundedWhilePublishing() {
    RaftGroupId group = cluster.groupIds().get(0);
    String uuid = group.getUuid().toString();
    RaftPeerId leader = cluster.leaderOf(group);
    Await.until("garbage collection deleted manifests", WAIT,
        () -> metric(leader, "ratis_offload_gc_deleted_total", Map.of("group", uuid, "kind", "manifest")) >= 3);
    Await.until("garbage collection deleted chunks", WAIT,
        () -> metric(leader, "ratis_offload_gc_deleted_total", Map.of("group", uuid, "kind", "chunk")) >= 1);
    for (RaftGroupId g : cluster.groupIds()) {
      List<StoredGeneration> remaining = generations(g);
      // The newest KEEP_LAST, the newest verified one, and one published after the last sweep.
      assertTrue(remaining.size() <= KEEP_LAST + 2, "generations of " + g + ": " + remaining.size());
      Set<String> referenced = new java.util.HashSet<>();
      for (StoredGeneration r : remaining) {
        Manifest m = verifyUnlessCollected(r);
        if (m != null) {
          m.files().forEach(f -> f.chunks().forEach(ch -> referenced.add(ch.sha256())));
        }
      }
      java.time.Instant recent = java.time.Instant.now().minusSeconds(30);
      long staleUnreferenced = reader.list(Layout.chunkPrefix(CLUSTER_ID, g.getUuid().toString())).stream()
          .filter(o -> !referenced.contains(o.key().substring(o.key().lastIndexOf('/') + 1)))
          .filter(o -> o.lastModified().isBefore(recent)).count();
      assertEquals(0, staleUnreferenced, "old unreferenced chunks of " + g + " were collected");
    }
  }

  private long newestIndex(RaftGroupId group) {
    return generations(group).stream().mapToLong(g -> g.id().index()).max().orElse(-1);
  }

  /** Verifies a generation; null if garbage collection removed it meanwhile (its manifest is gone). */
  private Manifest verifyUnlessCollected(StoredGeneration g) {
    try {
      return new GenerationReader(reader).verify(g.id());
    } catch (dev.ratisoffload.store.StoreException e) {
      if (reader.head(g.id().manifestKey()).isEmpty()) {
        return null;
      }
      throw e;
    }
  }

  @Test
  @Order(4)
  void aLeadershipTransferIsFollowedByGenerationsFromTheNewLeader() throws IOException {
    RaftGroupId group = cluster.groupIds().get(1);
    RaftPeerId oldLeader = cluster.leaderOf(group);
    RaftPeerId newLeader = cluster.peerIds().stream().filter(p -> !p.equals(oldLeader)).findFirst().orElseThrow();
    cluster.transferLeadership(group, newLeader);
    long term = cluster.server(newLeader).division(group).getInfo().getCurrentTerm();
    Await.until("a generation from " + newLeader + " in term " + term, WAIT, () -> generations(group).stream()
        .map(this::verifyUnlessCollected).filter(java.util.Objects::nonNull).map(Manifest::publisher)
        .anyMatch(p -> p.peer().equals(newLeader.toString()) && p.leaderTerm() >= term));
  }

  @Test
  @Order(5)
  void aStoreOutageIsCountedAndPublishingResumesAfterIt() throws IOException {
    RaftGroupId group = cluster.groupIds().get(2);
    String uuid = group.getUuid().toString();
    RaftPeerId leader = cluster.leaderOf(group);
    double failedBefore = metric(leader, "ratis_offload_failed_total", Map.of("group", uuid));
    s3.stop();
    try {
      Await.until("failures counted while the store is down", WAIT,
          () -> metric(leader, "ratis_offload_failed_total", Map.of("group", uuid)) > failedBefore);
      for (RaftPeerId peer : cluster.peerIds()) { // followers probe the store each pass too
        Await.until(peer + " reports store_up 0", WAIT, () -> metric(peer, "ratis_offload_store_up", Map.of()) == 0.0);
      }
    } finally {
      s3.restart();
    }
    long before = newestIndex(group); // counts stay level under retention: the newest index moves on
    Await.until("publishing resumes after the store returns", WAIT, () -> newestIndex(group) > before);
    for (RaftPeerId peer : cluster.peerIds()) {
      Await.until(peer + " reports store_up 1 again", WAIT, () -> metric(peer, "ratis_offload_store_up", Map.of()) == 1.0);
    }
    for (StoredGeneration g : generations(group)) {
      verifyUnlessCollected(g); // nothing partial is visible
    }
    assertTrue(logs.toString(StandardCharsets.UTF_8).contains("no generation was written"),
        "failures are logged as WARN lines");
  }

  @Test
  @Order(6)
  void groupsAddedAtRunTimeArePublishedAndRemovedOnesDropped() throws IOException {
    RaftGroup added = RaftGroup.valueOf(RaftGroupId.randomId(), cluster.peers());
    String uuid = added.getGroupId().getUuid().toString();
    try (KvClient admin = cluster.client(cluster.groupIds().get(0))) {
      for (RaftPeerId peer : cluster.peerIds()) {
        admin.raftClient().getGroupManagementApi(peer).add(added);
      }
    }
    for (RaftPeerId peer : cluster.peerIds()) {
      Await.until(peer + " schedules the new group", WAIT,
          () -> metric(peer, "ratis_offload_published_total", Map.of("group", uuid)) >= 0);
    }
    RaftPeerId leader = Await.value("a leader of the new group", WAIT, () -> cluster.peerIds().stream()
        .filter(p -> cluster.server(p).isReadyLeader(added.getGroupId())).findFirst());
    try (KvClient client = new KvClient(added, leader)) {
      for (int i = 0; i < 50; i++) {
        client.put("added-" + i, "v" + i);
      }
      client.takeSnapshot(leader);
    }
    Await.until("a generation of the new group", WAIT, () -> !generations(added.getGroupId()).isEmpty());
    try (KvClient admin = cluster.client(cluster.groupIds().get(0))) {
      for (RaftPeerId peer : cluster.peerIds()) {
        admin.raftClient().getGroupManagementApi(peer).remove(added.getGroupId(), true, false);
      }
    }
    for (RaftPeerId peer : cluster.peerIds()) {
      Await.until(peer + " drops the removed group's series", WAIT,
          () -> metric(peer, "ratis_offload_published_total", Map.of("group", uuid)) == -1);
    }
  }

  @Test
  @Order(7)
  void aRestartWithoutNewWritesPublishesNothingNew() throws Exception {
    writing.set(false);
    writer.join(30_000);
    // Every peer snapshots the final state, so whichever leads after the restart has nothing newer;
    // then every group publishes it, and everything restarts.
    for (RaftGroupId group : cluster.groupIds()) {
      long snapshot = cluster.snapshot(group);
      for (RaftPeerId peer : cluster.peerIds()) {
        cluster.awaitApplied(peer, group, snapshot, WAIT);
        cluster.snapshotOn(peer, group, WAIT);
      }
      Await.until("the final snapshot of " + group + " is published", WAIT,
          () -> generations(group).stream().anyMatch(g -> g.id().index() >= snapshot));
    }
    Map<RaftGroupId, Long> newest = new HashMap<>();
    cluster.groupIds().forEach(g -> newest.put(g, newestIndex(g)));
    cluster.restartAll(StartupOption.RECOVER);
    cluster.awaitLeaders(RatisCluster.DEFAULT_TIMEOUT);
    for (RaftGroupId group : cluster.groupIds()) {
      RaftPeerId leader = cluster.leaderOf(group);
      String uuid = group.getUuid().toString();
      Await.until("the restarted leader found its snapshot unchanged", WAIT,
          () -> metric(leader, "ratis_offload_skipped_total", Map.of("group", uuid, "reason", "unchanged")) >= 2);
      assertEquals(0.0, metric(leader, "ratis_offload_published_total", Map.of("group", uuid)));
      // What an alert on freshness needs after a restart: the newest generation's time, not 0.
      assertEquals(0.0, metric(leader, "ratis_offload_last_success_timestamp_seconds", Map.of("group", uuid)));
      double newestCreated = new GenerationReader(reader).readManifest(
          generations(group).get(generations(group).size() - 1).id()).createdAt().toEpochMilli() / 1000.0;
      for (RaftPeerId peer : cluster.peerIds()) {
        Await.until(peer + " reports the newest generation of " + group + " after the restart", WAIT,
            () -> metric(peer, "ratis_offload_newest_generation_timestamp_seconds", Map.of("group", uuid))
                == newestCreated);
      }
    }
    cluster.groupIds().forEach(g -> assertEquals(newest.get(g), newestIndex(g), "no newer generation of " + g));
  }

  @Test
  @Order(8)
  void noSecretAppearsInLogsOrErrors() {
    String wrongSecret = "wrong-secret-" + System.nanoTime();
    System.setProperty("aws.secretAccessKey", wrongSecret);
    try {
      RaftProperties p = new RaftProperties(cluster.servers().get(0).properties());
      OffloadConfigKeys.Preflight.setRequired(p, true);
      IllegalStateException refused = assertThrows(IllegalStateException.class,
          () -> SnapshotOffload.attach(cluster.servers().get(0).raftServer(), p, new CollectorRegistry()));
      assertTrue(refused.getMessage().contains("access denied"), refused.getMessage());
      assertFalse(stackText(refused).contains(wrongSecret));
    } finally {
      System.setProperty("aws.secretAccessKey", s3.secretKey());
    }
    String logged = logs.toString(StandardCharsets.UTF_8);
    assertFalse(logged.contains(wrongSecret), "the wrong secret was logged");
    assertFalse(logged.contains(s3.secretKey()), "the secret was logged");
  }

  /** Reads one sample from a peer's metrics endpoint; -1 if the series does not exist. */
  private double metric(RaftPeerId peer, String name, Map<String, String> labels) {
    try {
      HttpResponse<String> response = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + scrapes.get(peer).port() + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString());
      Pattern line = Pattern.compile("^" + name + "(\\{[^}]*\\})? (\\S+)$", Pattern.MULTILINE);
      Matcher m = line.matcher(response.body());
      while (m.find()) {
        if (labelsOf(m.group(1)).equals(labels)) {
          return Double.parseDouble(m.group(2));
        }
      }
      return -1;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static Map<String, String> labelsOf(String text) {
    Map<String, String> labels = new HashMap<>();
    if (text != null) {
      Matcher m = Pattern.compile("(\\w+)=\"([^\"]*)\"").matcher(text);
      while (m.find()) {
        labels.put(m.group(1), m.group(2));
      }
    }
    return labels;
  }

  private static String stackText(Throwable t) {
    java.io.StringWriter out = new java.io.StringWriter();
    t.printStackTrace(new java.io.PrintWriter(out));
    return out.toString();
  }

  /** Copies everything written to two streams. */
  private static final class TeeStream extends OutputStream {
    private final OutputStream a;
    private final OutputStream b;

    TeeStream(OutputStream a, OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public synchronized void write(int c) throws IOException {
      a.write(c);
      b.write(c);
    }

    @Override
    public synchronized void write(byte[] bytes, int off, int len) throws IOException {
      a.write(bytes, off, len);
      b.write(bytes, off, len);
    }
  }

  /**
   * Wraps a peer's store and records, at every moment, how many distinct groups have a store operation
   * in progress on that peer: a lower bound of the publishes running at once, so a value above the
   * limit proves it broken.
   */
  static final class GroupConcurrencyProbe {
    private final Map<String, AtomicInteger> active = new ConcurrentHashMap<>();
    private final AtomicInteger max = new AtomicInteger();

    int max() {
      return max.get();
    }

    ObjectStore wrap(ObjectStore store) {
      return new ForwardingObjectStore(store) {
        @Override
        protected <T> T call(String key, java.util.function.Supplier<T> request) {
          Optional<String> group = groupOf(key);
          // A scrub runs beside the publishes, one at a time on a thread of its own, outside the limit.
          if (group.isEmpty() || Thread.currentThread().getName().startsWith("offload-scrub")) {
            return request.get();
          }
          AtomicInteger count = active.computeIfAbsent(group.get(), g -> new AtomicInteger());
          count.incrementAndGet();
          try {
            max.accumulateAndGet((int) active.values().stream().filter(c -> c.get() > 0).count(), Math::max);
            return request.get();
          } finally {
            count.decrementAndGet();
          }
        }
      };
    }

    private static Optional<String> groupOf(String key) {
      for (String tree : Set.of(Layout.MANIFESTS, Layout.CHUNKS)) {
        if (key.startsWith(tree + CLUSTER_ID + "/")) {
          String rest = key.substring((tree + CLUSTER_ID + "/").length());
          int slash = rest.indexOf('/');
          return Optional.of(slash < 0 ? rest : rest.substring(0, slash));
        }
      }
      return Optional.empty();
    }
  }
}
