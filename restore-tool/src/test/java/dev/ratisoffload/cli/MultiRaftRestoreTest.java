package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.io.DurableFiles;
import dev.ratisoffload.plugin.OffloadConfigKeys;
import dev.ratisoffload.plugin.SnapshotOffload;
import dev.ratisoffload.publish.PublishResult;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.testkit.RatisCluster;
import io.prometheus.client.CollectorRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.function.Function;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.raftlog.LogProtoUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A multi-Raft cluster whose groups live on different peers, one of them with a listener and one with a
 * priority: published by the plugin, lost, restored with {@code offload restore --peer} for each peer, and
 * started again with RECOVER. Each peer gets exactly its groups, and every group comes back with the
 * configuration it had.
 */
class MultiRaftRestoreTest {

  static final String CLUSTER = "multi";
  static final Duration LEADERS = RatisCluster.DEFAULT_TIMEOUT;
  static final RaftPeerId P0 = RaftPeerId.valueOf("p0");
  static final RaftPeerId P1 = RaftPeerId.valueOf("p1");
  static final RaftPeerId P2 = RaftPeerId.valueOf("p2");
  static final RaftPeerId P3 = RaftPeerId.valueOf("p3");

  @TempDir
  Path tmp;

  @Test
  void eachPeerGetsItsGroupsAndTheClusterComesBackWithItsConfiguration() throws Exception {
    Path store = Files.createDirectories(tmp.resolve("store"));
    RaftGroupId onFirstThree = RaftGroupId.randomId();
    RaftGroupId withListener = RaftGroupId.randomId();
    RaftGroupId onLastThree = RaftGroupId.randomId();
    Map<RaftGroupId, Function<List<RaftPeer>, List<RaftPeer>>> layout = new LinkedHashMap<>();
    layout.put(onFirstThree, all -> List.of(all.get(0), all.get(1),
        RaftPeer.newBuilder(all.get(2)).setPriority(2).build()));
    layout.put(withListener, all -> List.of(all.get(0), all.get(1), all.get(2),
        RaftPeer.newBuilder(all.get(3)).setStartupRole(RaftPeerRole.LISTENER).build()));
    layout.put(onLastThree, all -> List.of(all.get(1), all.get(2), all.get(3)));
    Map<RaftGroupId, SortedMap<String, String>> written = new LinkedHashMap<>();
    Map<RaftPeerId, Integer> ports = publishThenLose(store, layout, written);

    // Without --peer: the groups live on different peers, so no directory may take them all.
    Cli.Result all = Cli.run("restore", "--store", store.toUri().toString(), "--cluster", CLUSTER,
        "--data-dir", tmp.resolve("restored/p0").toString());
    assertEquals(2, all.code(), all.toString());
    assertTrue(all.err().contains("peer p0 holds 2 group(s)"), all.toString());
    assertTrue(all.err().contains("peer p3 holds 2 group(s)"), all.toString());
    assertFalse(Files.exists(tmp.resolve("restored")), "nothing written");

    for (RaftPeerId peer : List.of(P0, P1, P2, P3)) {
      Cli.Result r = Cli.run("restore", "--store", store.toUri().toString(), "--cluster", CLUSTER,
          "--peer", peer.toString(), "--data-dir", tmp.resolve("restored/" + peer).toString());
      assertEquals(0, r.code(), r.toString());
    }
    assertEquals(List.of(uuid(onFirstThree), uuid(withListener)).stream().sorted().toList(), groupDirs(P0));
    assertTrue(Cli.run("restore", "--store", store.toUri().toString(), "--cluster", CLUSTER, "--peer", "p0",
        "--data-dir", tmp.resolve("again").toString()).out().contains("Skipped group " + uuid(onLastThree)));
    assertEquals(List.of(uuid(withListener), uuid(onLastThree)).stream().sorted().toList(), groupDirs(P3));

    RaftConfiguration prioritised = restoredConf(P0, onFirstThree);
    assertEquals(2, prioritised.getPeer(P2, RaftPeerRole.FOLLOWER).getPriority());
    assertEquals(0, prioritised.getPeer(P1, RaftPeerRole.FOLLOWER).getPriority());
    RaftConfiguration listened = restoredConf(P3, withListener);
    assertEquals(List.of(P3), listened.getCurrentPeers(RaftPeerRole.LISTENER).stream().map(RaftPeer::getId).toList());
    assertEquals(3, listened.getCurrentPeers(RaftPeerRole.FOLLOWER).size());

    try (RatisCluster cluster = RatisCluster.builder(tmp.resolve("restored")).existingStorage().ports(ports)
        .build().start()) {
      cluster.awaitLeaders(LEADERS);
      for (RaftGroupId group : layout.keySet()) {
        SortedMap<String, String> expected = written.get(group);
        assertEquals(expected, cluster.readKeys(group, expected.keySet()), "every key of " + group);
      }
      RaftConfiguration live = cluster.server(P3).division(withListener).getRaftConf();
      assertEquals(List.of(P3), live.getCurrentPeers(RaftPeerRole.LISTENER).stream().map(RaftPeer::getId).toList(),
          "the listener is still a listener");
      assertEquals(2, cluster.server(P0).division(onFirstThree).getRaftConf()
          .getPeer(P2, RaftPeerRole.FOLLOWER).getPriority());
    }
  }

  /** Runs the layout, writes and publishes every group from its leader, stops; returns the ports. */
  private Map<RaftPeerId, Integer> publishThenLose(Path store,
      Map<RaftGroupId, Function<List<RaftPeer>, List<RaftPeer>>> layout,
      Map<RaftGroupId, SortedMap<String, String>> written) throws Exception {
    RaftProperties keys = new RaftProperties();
    OffloadConfigKeys.Cluster.setId(keys, CLUSTER);
    OffloadConfigKeys.Store.setUri(keys, store.toUri().toString());
    Map<RaftPeerId, SnapshotOffload> offloads = new LinkedHashMap<>();
    Path lost = tmp.resolve("lost");
    try (ObjectStore directory = new DirectoryObjectStore(store);
        RatisCluster cluster = RatisCluster.builder(lost)
            .peerIds(List.of(P0, P1, P2, P3))
            .groupMembers(layout)
            .properties(peer -> new RaftProperties(keys))
            .attach(server -> {
              SnapshotOffload offload = SnapshotOffload.builder(server.raftServer(), server.properties())
                  .store(directory).registry(new CollectorRegistry()).withoutSchedule().attach();
              offloads.put(server.id(), offload);
              return offload;
            })
            .build()
            .start()) {
      cluster.awaitLeaders(LEADERS);
      for (RaftGroupId group : layout.keySet()) {
        written.put(group, cluster.writeKeys(group, 200, "k-"));
        cluster.snapshot(group);
        assertInstanceOf(PublishResult.Published.class, offloads.get(cluster.leaderOf(group)).publishNow(group));
      }
      Map<RaftPeerId, Integer> ports = cluster.ports();
      cluster.close();
      DurableFiles.deleteTree(lost);
      return ports;
    }
  }

  private RaftConfiguration restoredConf(RaftPeerId peer, RaftGroupId group) throws Exception {
    return LogProtoUtils.toRaftConfiguration(LogEntryProto.parseFrom(Files.readAllBytes(
        tmp.resolve("restored/" + peer + "/" + uuid(group) + "/current/raft-meta.conf"))));
  }

  private List<String> groupDirs(RaftPeerId peer) throws Exception {
    try (var entries = Files.list(tmp.resolve("restored/" + peer))) {
      return entries.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".")).sorted().toList();
    }
  }

  private static String uuid(RaftGroupId group) {
    return group.getUuid().toString();
  }
}
