package dev.ratisoffload.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.refkv.FileListKvStateMachine;
import dev.ratisoffload.refkv.KvClient;
import dev.ratisoffload.refkv.KvServer;
import dev.ratisoffload.refkv.KvStateMachine;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
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
 * One 3-peer, 3-group cluster shared by the class (starting one costs seconds). The tests run in
 * order because each continues from the state the previous one left.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RatisClusterTest {
  private static final Duration TIMEOUT = RatisCluster.DEFAULT_TIMEOUT;

  private Path root;
  private final RaftGroupId fileListGroup = RaftGroupId.randomId();
  private final AtomicInteger attached = new AtomicInteger();
  private final AtomicInteger detached = new AtomicInteger();
  private final Map<RaftGroupId, SortedMap<String, String>> beforeSnapshot = new HashMap<>();
  private final Map<RaftGroupId, SortedMap<String, String>> afterSnapshot = new HashMap<>();
  private RatisCluster cluster;

  @BeforeAll
  void startCluster(@TempDir Path tempDir) throws IOException {
    root = tempDir;
    cluster = RatisCluster.builder(root.resolve("cluster"))
        .peers(3)
        .groupIds(List.of(RaftGroupId.randomId(), RaftGroupId.randomId(), fileListGroup))
        .stateMachines(gid -> gid.equals(fileListGroup) ? new FileListKvStateMachine() : new KvStateMachine())
        .attach(server -> {
          attached.incrementAndGet();
          return detached::incrementAndGet;
        })
        .build()
        .start();
  }

  @AfterAll
  void stopCluster() throws IOException {
    cluster.close();
  }

  @Test
  @Order(1)
  void valuesSurviveSnapshotAndRestartWithRecover() throws IOException {
    final Map<RaftGroupId, RaftPeerId> leaders = cluster.awaitLeaders(TIMEOUT);
    assertEquals(cluster.groupIds(), List.copyOf(leaders.keySet()));
    for (RaftGroupId g : cluster.groupIds()) {
      beforeSnapshot.put(g, cluster.writeKeys(g, 300, "before-"));
      assertTrue(cluster.snapshot(g) > 0);
      afterSnapshot.put(g, cluster.writeKeys(g, 20, "after-"));
    }
    for (RaftPeerId peer : cluster.peerIds()) {
      for (RaftGroupId g : cluster.groupIds()) {
        final Path dir = cluster.groupDir(peer, g);
        assertEquals(g.getUuid().toString(), dir.getFileName().toString());
        assertTrue(Files.isRegularFile(dir.resolve("current/raft-meta")), dir + " is a Ratis group directory");
      }
    }

    cluster.restartAll(StartupOption.RECOVER);
    assertEquals(6, attached.get(), "attached at both starts of all 3 peers");
    assertEquals(3, detached.get(), "detached when the 3 peers stopped");

    cluster.awaitLeaders(TIMEOUT);
    for (RaftGroupId g : cluster.groupIds()) {
      assertEquals(beforeSnapshot.get(g), cluster.readKeys(g, beforeSnapshot.get(g).keySet()));
      assertEquals(afterSnapshot.get(g), cluster.readKeys(g, afterSnapshot.get(g).keySet()));
      try (KvClient client = cluster.client(g)) {
        assertEquals(320, client.count());
      }
    }
  }

  @Test
  @Order(2)
  void leadershipCanBeTransferred() throws IOException {
    final RaftGroupId g = cluster.groupIds().get(0);
    // Around every peer twice, back to back and under writes: a transfer may start while news of the
    // last election is still spreading or find its target behind, when Raft answers DIFFERENT_LEADER,
    // NotLeader or a timeout, and the helper must retry.
    final AtomicBoolean writing = new AtomicBoolean(true);
    final CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
      for (int batch = 0; writing.get(); batch++) {
        try {
          cluster.writeKeys(g, 100, "during-transfers-" + batch + "-");
        } catch (IOException e) {
          // refused while leadership moved; the next batch goes to the new leader
        }
      }
    });
    try {
      for (int round = 0; round < 2; round++) {
        for (RaftPeerId next : cluster.peerIds()) {
          cluster.transferLeadership(g, next);
          assertEquals(Optional.of(next), cluster.currentLeader(g), "the ready leader after a transfer to " + next);
        }
      }
    } finally {
      writing.set(false);
      writer.join();
    }
    final RaftPeerId stranger = RaftPeerId.valueOf("stranger");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> cluster.transferLeadership(g, stranger))
        .getMessage().contains("stranger is not a member"), "a transfer to a non-member fails at once");
    try (KvClient client = cluster.client(g)) {
      client.put("after-transfer", "ok");
      assertEquals(Optional.of("ok"), client.getString("after-transfer"));
    }
  }

  /**
   * A restore: each peer's group directory holds only raft-meta, raft-meta.conf (naming the new
   * addresses) and the leader's snapshot, and a new cluster starts on it on new ports.
   */
  @Test
  @Order(3)
  void restoredStorageStartsAsANewClusterOnNewPorts() throws IOException {
    final Map<RaftGroupId, RaftPeerId> leaders = cluster.awaitLeaders(TIMEOUT);
    final Map<RaftGroupId, Long> snapshotIndex = new HashMap<>();
    for (RaftGroupId g : cluster.groupIds()) {
      snapshotIndex.put(g, cluster.snapshot(g)); // includes every key written so far
    }
    cluster.stopAll();

    final Path restoredRoot = root.resolve("restored");
    for (RaftPeerId peer : cluster.peerIds()) {
      for (RaftGroupId g : cluster.groupIds()) {
        final Path from = cluster.groupDir(peer, g);
        final Path to = restoredRoot.resolve(peer.toString()).resolve(RatisCluster.groupDirName(g));
        Files.createDirectories(to.resolve("current"));
        Files.copy(from.resolve("current/raft-meta"), to.resolve("current/raft-meta"));
        Files.copy(from.resolve("current/raft-meta.conf"), to.resolve("current/raft-meta.conf"));
        copyTree(cluster.groupDir(leaders.get(g), g).resolve("sm"), to.resolve("sm"));
      }
    }

    try (RatisCluster restored = RatisCluster.builder(restoredRoot).existingStorage()
        .stateMachines(gid -> gid.equals(fileListGroup) ? new FileListKvStateMachine() : new KvStateMachine())
        .build()) {
      assertEquals(cluster.peerIds(), restored.peerIds());
      assertEquals(cluster.groupIds().stream().sorted(Comparator.comparing(RaftGroupId::toString)).toList(),
          restored.groupIds().stream().sorted(Comparator.comparing(RaftGroupId::toString)).toList());
      assertNotEquals(cluster.ports(), restored.ports());
      for (RaftPeerId peer : restored.peerIds()) {
        for (RaftGroupId g : restored.groupIds()) {
          rewriteAddresses(restored.groupDir(peer, g).resolve("current/raft-meta.conf"), restored.peers());
        }
      }

      restored.start();
      restored.awaitLeaders(TIMEOUT);
      for (RaftGroupId g : restored.groupIds()) {
        assertEquals(beforeSnapshot.get(g), restored.readKeys(g, beforeSnapshot.get(g).keySet()));
        assertEquals(afterSnapshot.get(g), restored.readKeys(g, afterSnapshot.get(g).keySet()));
        for (KvServer server : restored.servers()) {
          final long applied = server.division(g).getStateMachine().getLastAppliedTermIndex().getIndex();
          assertTrue(applied >= snapshotIndex.get(g), server.id() + " applied " + applied + " in " + g);
        }
      }
    }
  }

  /** What a restore to new addresses does to current/raft-meta.conf (a LogEntryProto). */
  private static void rewriteAddresses(Path confFile, List<RaftPeer> peers) throws IOException {
    final LogEntryProto entry;
    try (InputStream in = Files.newInputStream(confFile)) {
      entry = LogEntryProto.parseFrom(in);
    }
    final RaftConfigurationProto.Builder conf = entry.getConfigurationEntry().toBuilder();
    for (int i = 0; i < conf.getPeersCount(); i++) {
      final RaftPeerProto old = conf.getPeers(i);
      final RaftPeer now = peers.stream().filter(p -> p.getId().toByteString().equals(old.getId()))
          .findFirst().orElseThrow();
      conf.setPeers(i, old.toBuilder().setAddress(now.getAddress())
          .clearClientAddress().clearAdminAddress().clearDataStreamAddress());
    }
    try (OutputStream out = Files.newOutputStream(confFile)) {
      entry.toBuilder().setConfigurationEntry(conf).build().writeTo(out);
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        final Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
  }
}
