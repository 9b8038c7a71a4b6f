package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.GenerationReader.StoredGeneration;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.plugin.OffloadConfigKeys;
import dev.ratisoffload.plugin.SnapshotOffload;
import dev.ratisoffload.refkv.KvClient;
import dev.ratisoffload.store.ForwardingObjectStore;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreUri;
import dev.ratisoffload.store.Stores;
import dev.ratisoffload.testkit.Await;
import dev.ratisoffload.testkit.EmbeddedS3;
import dev.ratisoffload.testkit.RatisCluster;
import io.prometheus.client.CollectorRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code offload gc --apply} from outside, round after round, while a 3-peer cluster publishes on a short
 * schedule into S3 (and collects after each publish itself), with a leadership transfer in the middle.
 * The groups' values cycle through three states, so chunks of expired generations become unreferenced
 * and are then needed again by a later publish: the race between a publish re-using a chunk and a sweep
 * deleting it happens all the time. Every round also verifies every stored generation; at the end every
 * generation that exists verifies and restores.
 */
class ConcurrentGcEndToEndTest {

  private static final String CLUSTER = "gc-race";
  private static final String BUCKET = "backups";
  private static final int KEEP_LAST = 2;
  private static final int KEYS = 300;
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir
  Path tmp;

  private EmbeddedS3 s3;
  private final ObjectMapper json = new ObjectMapper();

  private String[] store(String... more) {
    List<String> args = new ArrayList<>(List.of("--store", "s3://" + BUCKET + "/ratis", "--endpoint",
        s3.endpoint().toString(), "--path-style", "--cluster", CLUSTER));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  private static String[] command(String name, String... args) {
    String[] all = new String[args.length + 1];
    all[0] = name;
    System.arraycopy(args, 0, all, 1, args.length);
    return all;
  }

  @Test
  void externalCollectionNeverBreaksAGeneration() throws Exception {
    s3 = EmbeddedS3.start(tmp.resolve("s3"));
    s3.createBucket(BUCKET);
    System.setProperty("aws.accessKeyId", s3.accessKey());
    System.setProperty("aws.secretAccessKey", s3.secretKey());
    try {
      RaftProperties keys = RetentionEndToEndTest.publishingOften("s3://" + BUCKET + "/ratis", CLUSTER, KEEP_LAST);
      OffloadConfigKeys.S3.setEndpoint(keys, s3.endpoint().toString());
      OffloadConfigKeys.S3.setPathStyle(keys, true);
      Map<RaftPeerId, CollectorRegistry> registries = new ConcurrentHashMap<>();
      try (RatisCluster cluster = RatisCluster.builder(tmp.resolve("ratis")).peers(3).groups(2)
          .properties(peer -> new RaftProperties(keys))
          .attach(server -> SnapshotOffload.attach(server.raftServer(), server.properties(),
              registries.computeIfAbsent(server.id(), id -> new CollectorRegistry())))
          .build().start()) {
        cluster.awaitLeaders(RatisCluster.DEFAULT_TIMEOUT);
        AtomicBoolean running = new AtomicBoolean(true);
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> writeCycling(cluster, running));
        Collections collections = new Collections();
        CompletableFuture<Void> collector = CompletableFuture.runAsync(() -> collections.runUntil(running));
        try {
          Await.until("generations and collections before the transfer", WAIT,
              () -> collections.failed() || collections.rounds.get() >= 6 && cluster.groupIds().stream()
                  .allMatch(g -> published(registries, g, null) >= 6));
          for (RaftGroupId group : cluster.groupIds()) {
            RaftPeerId from = cluster.leaderOf(group);
            RaftPeerId to = cluster.peerIds().stream().filter(p -> !p.equals(from)).findFirst().orElseThrow();
            double before = published(registries, group, to);
            cluster.transferLeadership(group, to);
            Await.until("generations of " + group + " from its new leader " + to, WAIT,
                () -> collections.failed() || published(registries, group, to) >= before + 3);
          }
          Await.until("collections after the transfer", WAIT,
              () -> collections.failed() || collections.rounds.get() >= 12);
        } finally {
          running.set(false);
          writer.join();
          collector.join();
        }
        assertEquals(List.of(), collections.problems, "every collection and verification succeeded");
        assertTrue(collections.chunksDeleted.get() > 0, "the collections deleted chunks");
        assertTrue(collections.keptForPublish.get() > 0, "some collection met a publish in progress");
      }
      // The plugins are closed: what is stored now is all there is.
      Cli.Result verify = Cli.run(command("verify", store("--all")));
      assertEquals(0, verify.code(), verify.toString());
      restoreEveryGeneration();
    } finally {
      s3.close();
      System.clearProperty("aws.accessKeyId");
      System.clearProperty("aws.secretAccessKey");
    }
  }

  /** Each group's values go through three states, over and over, so earlier content comes back. */
  private static void writeCycling(RatisCluster cluster, AtomicBoolean running) {
    for (int round = 0; running.get(); round++) {
      for (RaftGroupId group : cluster.groupIds()) {
        try (KvClient client = cluster.client(group)) {
          List<CompletableFuture<Boolean>> puts = new ArrayList<>();
          for (int i = 0; i < KEYS; i++) {
            String value = "state-" + round % 3 + "-of-key-" + i + "-padded-to-a-few-dozen-bytes";
            puts.add(client.putAsync("key-" + i, value.getBytes(StandardCharsets.UTF_8)));
          }
          CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).join();
        } catch (IOException | RuntimeException e) {
          // a leader change; the next round writes again
        }
      }
    }
  }

  /** The command line's collection and verification, run back to back, and what they reported. */
  private final class Collections {
    final AtomicInteger rounds = new AtomicInteger();
    final AtomicInteger chunksDeleted = new AtomicInteger();
    final AtomicInteger keptForPublish = new AtomicInteger();
    final List<String> problems = new CopyOnWriteArrayList<>();

    /** A collection or a verification failed: the test stops and reports it. */
    boolean failed() {
      return !problems.isEmpty();
    }

    void runUntil(AtomicBoolean running) {
      while (running.get() && !failed()) {
        Cli.Result gc = Cli.run(ConcurrentGcEndToEndTest::withoutS3ProxyTemporaries, command("gc",
            store("--keep-last", String.valueOf(KEEP_LAST), "--chunk-grace", "1min", "--apply", "--json")));
        if (gc.code() != 0) {
          problems.add(gc.toString());
          return;
        }
        for (JsonNode group : parse(gc).get("groups")) {
          chunksDeleted.addAndGet(group.get("chunksDeleted").asInt());
          if (!group.get("chunksKept").isNull()) {
            keptForPublish.incrementAndGet();
          }
        }
        // A generation removed while it is checked is DELETED; one that names a deleted chunk is CORRUPT.
        Cli.Result verify = Cli.run(command("verify", store("--all", "--json")));
        for (JsonNode generation : parse(verify)) {
          String status = generation.get("status").asText();
          if (!status.equals("OK") && !status.equals("DELETED")) {
            problems.add(verify.toString());
          }
        }
        rounds.incrementAndGet();
      }
    }

    private JsonNode parse(Cli.Result result) {
      try {
        return json.readTree(result.out());
      } catch (IOException e) {
        problems.add("not JSON: " + result);
        return json.createArrayNode();
      }
    }
  }

  private static final Pattern S3PROXY_TEMPORARY = Pattern.compile(
      "(\\.manifest|/[0-9a-f]{64}|-[0-9a-f-]{36})-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$");

  /**
   * The store as {@code offload gc} opens it, less the temporary files ({@code <key>-<uuid>}) that
   * S3Proxy's filesystem backend shows in listings while a put is in flight: S3 lists an object only once
   * it is written, and collection rightly stops at an object among the manifests it does not understand.
   */
  private static ObjectStore withoutS3ProxyTemporaries(StoreOptions options) {
    return new ForwardingObjectStore(options.open()) {
      @Override
      public List<ObjectInfo> list(String prefix, String startAfter, int maxKeys) {
        return super.list(prefix, startAfter, maxKeys).stream().filter(o -> !S3PROXY_TEMPORARY.matcher(o.key()).find()).toList();
      }
    };
  }

  /** Restores every stored generation, each into a scratch directory of its own: each must succeed. */
  private void restoreEveryGeneration() {
    StoreUri uri = StoreUri.parse("s3://" + BUCKET + "/ratis");
    S3Settings settings = S3Settings.builder().endpoint(s3.endpoint()).pathStyle(true).build();
    try (ObjectStore store = Stores.open(uri, settings)) {
      List<StoredGeneration> generations = new GenerationReader(store).list(Layout.manifestPrefix(CLUSTER));
      assertTrue(generations.size() >= 2, "generations: " + generations.size());
      for (StoredGeneration g : generations) {
        Path dataDir = tmp.resolve("restored").resolve(g.id().group() + "-" + g.id().index());
        Cli.Result restore = Cli.run(command("restore", store("--group", g.id().group(), "--index",
            String.valueOf(g.id().index()), "--data-dir", dataDir.toString())));
        assertEquals(0, restore.code(), g.id() + ": " + restore);
      }
    }
  }

  /** Generations of the group published so far: by one peer, or (null) by all. */
  private static double published(Map<RaftPeerId, CollectorRegistry> registries, RaftGroupId group,
      RaftPeerId peer) {
    double sum = 0;
    for (Map.Entry<RaftPeerId, CollectorRegistry> e : registries.entrySet()) {
      if (peer == null || peer.equals(e.getKey())) {
        Double value = e.getValue().getSampleValue("ratis_offload_published_total", new String[] {"group"},
            new String[] {group.getUuid().toString()});
        sum += value == null ? 0 : value;
      }
    }
    return sum;
  }
}
