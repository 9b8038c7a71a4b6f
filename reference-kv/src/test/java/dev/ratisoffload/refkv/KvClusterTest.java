package dev.ratisoffload.refkv;

import static dev.ratisoffload.refkv.LocalKvCluster.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.storage.RaftStorage.StartupOption;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.StateMachine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3-peer cluster hosting two groups, one per state machine kind: {@link KvStateMachine} (one
 * snapshot file) and {@link FileListKvStateMachine} (a directory of shard files).
 */
class KvClusterTest {
  private static final List<Supplier<StateMachine>> BOTH_KINDS =
      List.of(KvStateMachine::new, FileListKvStateMachine::new);

  @TempDir
  Path root;

  @Test
  void valuesSurviveSnapshotAndRestart() throws Exception {
    try (LocalKvCluster cluster = new LocalKvCluster(root, 3, BOTH_KINDS, new RaftProperties())) {
      cluster.start(StartupOption.FORMAT);
      for (RaftGroup group : cluster.groups) {
        final RaftPeerId leader = cluster.awaitLeader(group.getGroupId());
        try (KvClient client = cluster.client(group)) {
          for (int i = 0; i < 40; i++) {
            assertFalse(client.put(key(i), value(group, i)));
          }
          final long index = client.takeSnapshot(leader);
          assertSnapshotOnDisk(cluster.server(leader), group, index);
          for (int i = 40; i < 50; i++) {
            client.put(key(i), value(group, i)); // only in the log, after the snapshot
          }
          assertTrue(client.delete(key(0)));
        }
      }

      cluster.stopAll();
      cluster.start(StartupOption.RECOVER);

      for (RaftGroup group : cluster.groups) {
        cluster.awaitLeader(group.getGroupId());
        try (KvClient client = cluster.client(group)) {
          assertEquals(Optional.empty(), client.get(key(0)));
          for (int i = 1; i < 50; i++) {
            assertEquals(Optional.of(value(group, i)), client.getString(key(i)), key(i));
          }
          assertEquals(49, client.count());
          for (var peer : cluster.peers) {
            await(peer.getId() + " to replay " + group.getGroupId(), LocalKvCluster.RAFT_TIMEOUT,
                () -> countOn(client, peer.getId()) == 49);
          }
        }
      }
    }
  }

  @Test
  void restoredGroupDirectoryStartsAtTheSnapshotIndex() throws Exception {
    try (LocalKvCluster cluster = new LocalKvCluster(root, 3, BOTH_KINDS, new RaftProperties())) {
      cluster.start(StartupOption.FORMAT);
      final long[] snapshotIndex = new long[cluster.groups.size()];
      final Path staging = Files.createDirectories(root.resolve("staging"));
      for (int g = 0; g < cluster.groups.size(); g++) {
        final RaftGroup group = cluster.groups.get(g);
        final RaftPeerId leader = cluster.awaitLeader(group.getGroupId());
        try (KvClient client = cluster.client(group)) {
          for (int i = 0; i < 30; i++) {
            client.put(key(i), value(group, i));
          }
          snapshotIndex[g] = client.takeSnapshot(leader);
          client.put("after-snapshot", "lost: the log is not restored");
        }
        // What a backup holds: the leader's snapshot files.
        copyTree(cluster.server(leader).groupDir(group.getGroupId()).resolve("sm"), staging.resolve("sm-" + g));
      }
      cluster.stopAll();

      // Restore: each peer keeps only current/raft-meta and raft-meta.conf, plus the backed-up sm/.
      for (var peer : cluster.peers) {
        for (int g = 0; g < cluster.groups.size(); g++) {
          final Path groupDir = cluster.storageDir(peer.getId())
              .resolve(KvServer.groupDirName(cluster.groups.get(g).getGroupId()));
          final Path keep = Files.createDirectories(root.resolve("keep"));
          Files.copy(groupDir.resolve("current/raft-meta"), keep.resolve("raft-meta"));
          Files.copy(groupDir.resolve("current/raft-meta.conf"), keep.resolve("raft-meta.conf"));
          deleteTree(groupDir);
          Files.createDirectories(groupDir.resolve("current"));
          Files.move(keep.resolve("raft-meta"), groupDir.resolve("current/raft-meta"));
          Files.move(keep.resolve("raft-meta.conf"), groupDir.resolve("current/raft-meta.conf"));
          copyTree(staging.resolve("sm-" + g), groupDir.resolve("sm"));
        }
      }

      // One peer alone cannot commit anything, so what it applied is exactly the snapshot.
      final KvServer first = cluster.startPeer(cluster.peers.get(0).getId(), StartupOption.RECOVER);
      for (int g = 0; g < cluster.groups.size(); g++) {
        final StateMachine sm = first.division(cluster.groups.get(g).getGroupId()).getStateMachine();
        assertEquals(snapshotIndex[g], sm.getLastAppliedTermIndex().getIndex());
        assertEquals(snapshotIndex[g], sm.getLatestSnapshot().getIndex());
      }
      cluster.startPeer(cluster.peers.get(1).getId(), StartupOption.RECOVER);
      cluster.startPeer(cluster.peers.get(2).getId(), StartupOption.RECOVER);

      for (RaftGroup group : cluster.groups) {
        cluster.awaitLeader(group.getGroupId());
        try (KvClient client = cluster.client(group)) {
          for (int i = 0; i < 30; i++) {
            assertEquals(Optional.of(value(group, i)), client.getString(key(i)));
          }
          assertEquals(Optional.empty(), client.get("after-snapshot"));
          client.put("after-restore", "ok");
          assertEquals(Optional.of("ok"), client.getString("after-restore"));
          assertEquals(31, client.count());
        }
      }
    }
  }

  static void assertSnapshotOnDisk(KvServer server, RaftGroup group, long index) throws IOException {
    final SnapshotInfo info = server.division(group.getGroupId()).getStateMachine().getLatestSnapshot();
    assertEquals(index, info.getIndex());
    final Path sm = server.groupDir(group.getGroupId()).resolve("sm");
    final String ti = info.getTerm() + "_" + index;
    if (info.getFiles().size() == 1) {
      assertTrue(Files.isRegularFile(sm.resolve("snapshot." + ti)));
      assertTrue(Files.isRegularFile(sm.resolve("snapshot." + ti + ".md5")));
    } else {
      assertEquals(FileListKvStateMachine.DEFAULT_SHARDS + 1, info.getFiles().size());
      for (int i = 0; i < FileListKvStateMachine.DEFAULT_SHARDS; i++) {
        assertTrue(Files.isRegularFile(sm.resolve("snapshot-" + ti + "/shard-" + i)));
        assertTrue(Files.isRegularFile(sm.resolve("snapshot-" + ti + "/shard-" + i + ".md5")));
      }
      assertTrue(Files.isRegularFile(sm.resolve("snapshot-" + ti + "/index")));
    }
    info.getFiles().forEach(f -> assertTrue(f.getPath().startsWith(sm), f.getPath() + " under " + sm));
  }

  static long countOn(KvClient client, RaftPeerId peer) {
    try {
      return client.countOn(peer);
    } catch (IOException e) {
      return -1;
    }
  }

  static String key(int i) {
    return String.format("key-%03d", i);
  }

  static String value(RaftGroup group, int i) {
    return "value-" + i + "-of-" + group.getGroupId().getUuid();
  }

  static void copyTree(Path from, Path to) throws IOException {
    try (var paths = Files.walk(from)) {
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

  static void deleteTree(Path dir) throws IOException {
    try (var paths = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }
}
