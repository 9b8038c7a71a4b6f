package dev.ratisoffload.refkv;

import static dev.ratisoffload.refkv.KvClusterTest.countOn;
import static dev.ratisoffload.refkv.KvClusterTest.key;
import static dev.ratisoffload.refkv.LocalKvCluster.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage.StartupOption;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.util.SizeInBytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower that missed entries the leader has already purged catches up from the leader's
 * snapshot: Ratis copies the snapshot's files into the follower's {@code sm/} directory and the
 * state machine reloads from them. Exercised for both snapshot layouts.
 */
class KvSnapshotInstallTest {
  private static final List<Supplier<StateMachine>> BOTH_KINDS =
      List.of(KvStateMachine::new, FileListKvStateMachine::new);
  private static final int KEYS = 200;

  @TempDir
  Path root;

  @Test
  void laggingFollowerInstallsTheLeadersSnapshot() throws Exception {
    final RaftProperties properties = new RaftProperties();
    // Small segments that are purged right after a snapshot, so the leader cannot replay the log.
    RaftServerConfigKeys.Log.setSegmentSizeMax(properties, SizeInBytes.valueOf("32KB"));
    RaftServerConfigKeys.Log.setPreallocatedSize(properties, SizeInBytes.valueOf("16KB"));
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(properties, true);
    RaftServerConfigKeys.Log.setPurgeGap(properties, 1);

    try (LocalKvCluster cluster = new LocalKvCluster(root, 3, BOTH_KINDS, properties)) {
      cluster.start(StartupOption.FORMAT);
      final Map<RaftGroup, RaftPeerId> leaders = new HashMap<>();
      for (RaftGroup group : cluster.groups) {
        leaders.put(group, cluster.awaitLeader(group.getGroupId()));
      }
      // A peer that leads no group: with 3 peers and 2 groups there is always one.
      final RaftPeerId lagging = cluster.peers.stream().map(RaftPeer::getId)
          .filter(id -> !leaders.containsValue(id)).findFirst().orElseThrow();
      cluster.stopPeer(lagging);

      final byte[] value = new byte[512];
      Arrays.fill(value, (byte) 'x');
      final Map<RaftGroup, Long> snapshotIndex = new HashMap<>();
      for (RaftGroup group : cluster.groups) {
        try (KvClient client = cluster.client(group)) {
          final List<CompletableFuture<Boolean>> puts = new ArrayList<>();
          for (int i = 0; i < KEYS; i++) {
            puts.add(client.putAsync(key(i), value));
          }
          CompletableFuture.allOf(puts.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
          snapshotIndex.put(group, client.takeSnapshot(leaders.get(group)));
        }
        final RaftServer.Division leader = cluster.server(leaders.get(group)).division(group.getGroupId());
        await("the leader to purge its log", LocalKvCluster.RAFT_TIMEOUT,
            () -> leader.getRaftLog().getStartIndex() > 10);
      }

      final KvServer restarted = cluster.startPeer(lagging, StartupOption.RECOVER);
      for (RaftGroup group : cluster.groups) {
        try (KvClient client = cluster.client(group)) {
          await(lagging + " to catch up on " + group.getGroupId(), LocalKvCluster.RAFT_TIMEOUT,
              () -> countOn(client, lagging) == KEYS);
        }
        final StateMachine sm = restarted.division(group.getGroupId()).getStateMachine();
        assertEquals(snapshotIndex.get(group), sm.getLatestSnapshot().getIndex(),
            "the follower holds the leader's snapshot, which it never took itself");
        assertTrue(sm.getLastAppliedTermIndex().getIndex() >= snapshotIndex.get(group));
        KvClusterTest.assertSnapshotOnDisk(restarted, group, snapshotIndex.get(group));
      }
    }
  }
}
