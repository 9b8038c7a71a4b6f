package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.plugin.OffloadConfigKeys;
import dev.ratisoffload.plugin.SnapshotOffload;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.testkit.Await;
import dev.ratisoffload.testkit.RatisCluster;
import io.prometheus.client.CollectorRegistry;
import dev.ratisoffload.refkv.KvClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroupId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Publishing continuously while the plugin's garbage collection runs: afterwards, with the plugins
 * still collecting, {@code offload verify --all} passes for every remaining generation, and storage
 * stays bounded over many generations.
 */
class RetentionEndToEndTest {

  private static final String CLUSTER = "retention";
  private static final int KEEP_LAST = 2;
  private static final int GENERATIONS = 12;

  @TempDir
  Path tmp;

  @Test
  void storageStaysBoundedAndEveryRemainingGenerationVerifies() throws Exception {
    Path storeDir = tmp.resolve("store");
    RaftProperties keys = publishingOften(storeDir.toUri().toString(), CLUSTER, KEEP_LAST);
    DirectoryObjectStore store = new DirectoryObjectStore(storeDir);
    AtomicBoolean writing = new AtomicBoolean(true);
    List<CollectorRegistry> registries = new CopyOnWriteArrayList<>();
    try (RatisCluster cluster = RatisCluster.builder(tmp.resolve("ratis")).peers(3).groups(2)
        .properties(peer -> new RaftProperties(keys))
        .attach(server -> {
          CollectorRegistry registry = new CollectorRegistry();
          registries.add(registry);
          return SnapshotOffload.attach(server.raftServer(), server.properties(), registry);
        })
        .build().start()) {
      cluster.awaitLeaders(RatisCluster.DEFAULT_TIMEOUT);
      Thread writer = new Thread(() -> {
        for (int round = 0; writing.get(); round++) {
          for (RaftGroupId group : cluster.groupIds()) {
            // The same 200 keys with new values: the state keeps its size but every byte changes, so
            // without collection storage would grow by a snapshot per generation.
            try (KvClient client = cluster.client(group)) {
              List<CompletableFuture<Boolean>> puts = new ArrayList<>();
              for (int i = 0; i < 200; i++) {
                puts.add(client.putAsync("key-" + i, ("round-" + round + "-" + i).getBytes(StandardCharsets.UTF_8)));
              }
              CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).join();
            } catch (IOException | RuntimeException e) {
              // a leader change; the next round retries
            }
          }
        }
      });
      writer.start();
      long maxChunkBytes = 0;
      try {
        for (RaftGroupId group : cluster.groupIds()) {
          String manifests = Layout.manifestPrefix(CLUSTER, group.getUuid().toString());
          String chunks = Layout.chunkPrefix(CLUSTER, group.getUuid().toString());
          Await.until(GENERATIONS + " generations of " + group + " published", Duration.ofSeconds(120), () -> {
            int kept = store.list(manifests).size();
            // The newest KEEP_LAST, the newest verified (scrubbed every second), one published after a sweep.
            assertTrue(kept <= KEEP_LAST + 2, "generations kept: " + kept);
            return published(registries, group) >= GENERATIONS;
          });
          maxChunkBytes = Math.max(maxChunkBytes, store.list(chunks).stream().mapToLong(ObjectInfo::size).sum());
        }
      } finally {
        writing.set(false);
        writer.join(30_000);
      }
      String uri = storeDir.toUri().toString();
      Cli.Result verify = Cli.run("verify", "--store", uri, "--cluster", CLUSTER, "--all", "--json");
      assertEquals(0, verify.code(), verify.toString());
      JsonNode verified = new ObjectMapper().readTree(verify.out());
      assertTrue(verified.size() >= cluster.groupIds().size(), verify.out());
      // The plugins still collect while verify runs: a generation removed meanwhile is DELETED, never
      // CORRUPT, and every group keeps one that verifies.
      Set<String> groupsVerified = new HashSet<>();
      verified.forEach(g -> {
        String status = g.get("status").asText();
        assertTrue(status.equals("OK") || status.equals("DELETED"), verify.out());
        if (status.equals("OK")) {
          groupsVerified.add(g.get("group").asText());
        }
      });
      assertEquals(cluster.groupIds().size(), groupsVerified.size(), verify.out());
      // A generation is about 200 keys (a few KB); twelve of them kept would be several times more.
      assertTrue(maxChunkBytes < snapshotBytes(store) * 6, "chunk bytes of one group: " + maxChunkBytes);
    }
  }

  /**
   * The plugin's keys for a test: a publish every 300 ms or so, after every 10 entries, in 4 KB chunks,
   * a scrub every second (retention keeps the newest verified generation too), keeping the newest
   * {@code keepLast}, with the least chunk grace.
   */
  static RaftProperties publishingOften(String storeUri, String cluster, int keepLast) {
    RaftProperties keys = new RaftProperties();
    OffloadConfigKeys.Store.setUri(keys, storeUri);
    OffloadConfigKeys.Cluster.setId(keys, cluster);
    keys.set(OffloadConfigKeys.Schedule.INTERVAL_KEY, "300ms");
    keys.set(OffloadConfigKeys.Schedule.JITTER_KEY, "100ms");
    OffloadConfigKeys.Snapshot.setTriggerGap(keys, 10);
    keys.set(OffloadConfigKeys.Upload.CHUNK_SIZE_KEY, "4KB");
    OffloadConfigKeys.Retention.setKeepLast(keys, keepLast);
    keys.set(OffloadConfigKeys.Scrub.INTERVAL_KEY, "1s");
    keys.set(OffloadConfigKeys.Retention.CHUNK_GRACE_KEY, "1min");
    return keys;
  }

  /** The size of the newest generation's snapshot, from its manifest. */
  private static long snapshotBytes(DirectoryObjectStore store) {
    var reader = new dev.ratisoffload.format.GenerationReader(store);
    var newest = reader.list(Layout.manifestPrefix(CLUSTER)).get(0);
    return reader.readManifest(newest.id()).totalBytes();
  }

  /** Generations of the group published so far, by every peer. */
  private static double published(List<CollectorRegistry> registries, RaftGroupId group) {
    double sum = 0;
    for (CollectorRegistry registry : registries) {
      Double value = registry.getSampleValue("ratis_offload_published_total", new String[] {"group"},
          new String[] {group.getUuid().toString()});
      sum += value == null ? 0 : value;
    }
    return sum;
  }
}
