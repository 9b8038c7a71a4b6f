package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.plugin.OffloadConfigKeys;
import dev.ratisoffload.plugin.SnapshotOffload;
import dev.ratisoffload.publish.PublishResult;
import dev.ratisoffload.refkv.FileListKvStateMachine;
import dev.ratisoffload.refkv.KvStateMachine;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.testkit.FreePorts;
import dev.ratisoffload.testkit.RatisCluster;
import io.prometheus.client.CollectorRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The restore contract, the disaster drill end to end: a 3-peer reference cluster with three groups and
 * thousands of keys publishes to the store under test (and to any {@link #alsoPublishTo() other}); every
 * peer is stopped and its storage deleted; {@code offload restore} runs once per peer; the cluster starts
 * with RECOVER, elects leaders, serves every key and accepts new writes. Once on the old ports, once moved
 * to new ports with {@code --peers}. Each store's test extends this.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RestoreEndToEndContract {

  static final String CLUSTER = "drill";
  static final String BUCKET = "backups";
  static final int KEYS_PER_GROUP = 2000;
  static final Duration LEADERS = RatisCluster.DEFAULT_TIMEOUT;

  @TempDir
  static Path tmp;

  String storeUri;
  List<RaftGroupId> groupIds;
  Map<RaftPeerId, Integer> oldPorts;
  final Map<RaftGroupId, SortedMap<String, String>> written = new LinkedHashMap<>();

  /**
   * Starts the store and returns its URI; the command line must find its credentials where the AWS SDK's
   * default chain looks (system properties, for a store the test starts).
   */
  abstract String startStore() throws IOException;

  /** The flags besides {@code --store} that {@code offload restore} needs to reach the store. */
  abstract List<String> storeFlags();

  /** The store under test, as the plugin writes to it. */
  abstract ObjectStore openStore();

  /** Stops the store, or removes what the test wrote there. */
  abstract void stopStore() throws IOException;

  /** Further stores the same servers publish to, each through its own spool; none unless a test adds one. */
  List<ObjectStore> alsoPublishTo() throws IOException {
    return List.of();
  }

  @BeforeAll
  void publishThenLoseTheCluster() throws Exception {
    storeUri = startStore();

    groupIds = List.of(RaftGroupId.randomId(), RaftGroupId.randomId(), RaftGroupId.randomId());
    RaftGroupId multiFile = groupIds.get(2);
    RaftProperties offloadKeys = new RaftProperties();
    OffloadConfigKeys.Cluster.setId(offloadKeys, CLUSTER);
    OffloadConfigKeys.Store.setUri(offloadKeys, storeUri);
    offloadKeys.set(OffloadConfigKeys.Upload.CHUNK_SIZE_KEY, "16KB");
    List<ObjectStore> others = alsoPublishTo();
    try (ObjectStore store = openStore()) {
      Map<RaftPeerId, List<SnapshotOffload>> offloads = new LinkedHashMap<>();
      RatisCluster cluster = RatisCluster.builder(tmp.resolve("lost"))
          .peers(3)
          .groupIds(groupIds)
          .stateMachines(g -> g.equals(multiFile) ? new FileListKvStateMachine() : new KvStateMachine())
          .properties(peer -> new RaftProperties(offloadKeys))
          .attach(server -> {
            List<SnapshotOffload> attached = new ArrayList<>();
            attached.add(SnapshotOffload.builder(server.raftServer(), server.properties())
                .store(store).registry(new CollectorRegistry()).withoutSchedule().attach());
            for (int i = 0; i < others.size(); i++) {
              RaftProperties otherKeys = new RaftProperties(server.properties());
              OffloadConfigKeys.Spool.setDir(otherKeys, tmp.resolve("spool-" + i + "-" + server.id()).toFile());
              attached.add(SnapshotOffload.builder(server.raftServer(), otherKeys)
                  .store(others.get(i)).registry(new CollectorRegistry()).withoutSchedule().attach());
            }
            offloads.put(server.id(), attached);
            return () -> attached.forEach(SnapshotOffload::close);
          })
          .build()
          .start();
      try {
        oldPorts = cluster.ports();
        cluster.awaitLeaders(LEADERS);
        // Move group 1's leadership twice first: its snapshot is taken in a later term than the
        // others', the case where a restored raft-meta with a low term breaks the group.
        RaftGroupId moved = groupIds.get(1);
        for (int i = 0; i < 2; i++) {
          RaftPeerId leader = cluster.leaderOf(moved);
          cluster.transferLeadership(moved, cluster.peerIds().stream().filter(p -> !p.equals(leader))
              .findFirst().orElseThrow());
        }
        for (RaftGroupId group : groupIds) {
          written.put(group, cluster.writeKeys(group, KEYS_PER_GROUP, "k-"));
          cluster.snapshot(group);
          RaftPeerId leader = cluster.leaderOf(group);
          for (SnapshotOffload offload : offloads.get(leader)) {
            assertInstanceOf(PublishResult.Published.class, offload.publishNow(group));
          }
        }
        long movedTerm = new GenerationReader(store).newest(CLUSTER, moved.getUuid().toString())
            .orElseThrow().id().term();
        assertTrue(movedTerm >= 3, "a snapshot taken in a late term: " + movedTerm);
      } finally {
        cluster.close();
      }
    } finally {
      others.forEach(ObjectStore::close);
    }
    deleteTree(tmp.resolve("lost"));
  }

  @AfterAll
  void stopTheStore() throws IOException {
    stopStore();
  }

  @Test
  void restoresOntoTheOldPorts() throws Exception {
    Path root = tmp.resolve("from-store");
    for (RaftPeerId peer : oldPorts.keySet()) {
      assertRestored(restore(storeUri, storeFlags(), "--data-dir", root.resolve(peer.toString()).toString()));
    }
    startAndCheck(root, oldPorts);
  }

  @Test
  void restoresOntoNewPortsWithPeers() throws Exception {
    Path root = tmp.resolve("moved");
    List<Integer> free = FreePorts.distinct(oldPorts.size());
    Map<RaftPeerId, Integer> newPorts = new LinkedHashMap<>();
    List<String> peers = new ArrayList<>();
    int i = 0;
    for (RaftPeerId peer : oldPorts.keySet()) {
      newPorts.put(peer, free.get(i++));
      peers.add(peer + "=127.0.0.1:" + newPorts.get(peer));
    }
    for (RaftPeerId peer : oldPorts.keySet()) {
      assertRestored(restore(storeUri, storeFlags(), "--peers", String.join(",", peers),
          "--data-dir", root.resolve(peer.toString()).toString()));
    }
    startAndCheck(root, newPorts);
  }

  /** Runs {@code offload restore} of {@link #CLUSTER} from {@code uri} with the given flags. */
  static Cli.Result restore(String uri, List<String> flags, String... more) {
    List<String> args = new ArrayList<>(List.of("restore", "--store", uri, "--cluster", CLUSTER));
    args.addAll(flags);
    args.addAll(List.of(more));
    return Cli.run(args.toArray(String[]::new));
  }

  static void assertRestored(Cli.Result r) {
    assertEquals(0, r.code(), r.toString());
  }

  /** Starts the restored cluster with RECOVER and checks that it serves every key and takes writes. */
  void startAndCheck(Path root, Map<RaftPeerId, Integer> ports) throws Exception {
    RaftGroupId multiFile = groupIds.get(2);
    try (RatisCluster cluster = RatisCluster.builder(root)
        .existingStorage()
        .ports(ports)
        .stateMachines(g -> g.equals(multiFile) ? new FileListKvStateMachine() : new KvStateMachine())
        .build()
        .start()) {
      assertEquals(groupIds.stream().sorted(Comparator.comparing(RaftGroupId::getUuid)).toList(),
          cluster.groupIds().stream().sorted(Comparator.comparing(RaftGroupId::getUuid)).toList());
      cluster.awaitLeaders(LEADERS);
      // Groups are independent: check them side by side.
      List<CompletableFuture<Void>> checks = new ArrayList<>();
      for (RaftGroupId group : groupIds) {
        checks.add(CompletableFuture.runAsync(() -> {
          try {
            SortedMap<String, String> expected = written.get(group);
            assertEquals(expected, cluster.readKeys(group, expected.keySet()), "every key of " + group);
            SortedMap<String, String> more = cluster.writeKeys(group, 50, "after-");
            assertEquals(more, cluster.readKeys(group, more.keySet()), "new writes to " + group);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }));
      }
      for (CompletableFuture<Void> check : checks) {
        try {
          check.get(5, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
          if (e.getCause() instanceof Error error) {
            throw error; // an assertion of the check
          }
          throw e;
        }
      }
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
