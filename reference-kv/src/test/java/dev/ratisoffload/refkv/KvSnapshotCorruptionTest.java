package dev.ratisoffload.refkv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage.StartupOption;
import org.apache.ratis.statemachine.StateMachine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A damaged snapshot must stop the group from starting, never let it start silently empty.
 * A single-peer cluster is enough (and quick): the snapshot is the only copy of the data.
 */
class KvSnapshotCorruptionTest {
  private static final List<Supplier<StateMachine>> BOTH_KINDS =
      List.of(KvStateMachine::new, FileListKvStateMachine::new);

  @TempDir
  Path root;

  @Test
  void damagedSnapshotOrSidecarRefusesToStart() throws Exception {
    try (LocalKvCluster cluster = new LocalKvCluster(root, 1, BOTH_KINDS, new RaftProperties())) {
      final RaftPeerId peer = cluster.peers.get(0).getId();
      cluster.start(StartupOption.FORMAT);
      final Path[] snapshotFile = new Path[2];
      for (int g = 0; g < 2; g++) {
        final RaftGroup group = cluster.groups.get(g);
        cluster.awaitLeader(group.getGroupId());
        try (KvClient client = cluster.client(group)) {
          client.put("k", "v");
          client.takeSnapshot(peer);
        }
        final List<FileInfo> files = cluster.server(peer).division(group.getGroupId()).getStateMachine()
            .getLatestSnapshot().getFiles();
        snapshotFile[g] = files.get(0).getPath();
      }
      cluster.stopAll();

      for (Path file : snapshotFile) {
        final Path md5 = file.resolveSibling(file.getFileName() + ".md5");
        final byte[] goodMd5 = Files.readAllBytes(md5);
        final byte[] goodData = Files.readAllBytes(file);

        Files.write(md5, "not an md5 line".getBytes(StandardCharsets.UTF_8));
        assertRefusesToStart(cluster, peer, "a malformed .md5 sidecar of " + file);
        Files.write(md5, goodMd5);

        final byte[] flipped = goodData.clone();
        flipped[flipped.length - 1] ^= 1;
        Files.write(file, flipped);
        assertRefusesToStart(cluster, peer, "a snapshot whose bytes do not match its .md5 " + file);
        Files.write(file, goodData);
      }

      cluster.startPeer(peer, StartupOption.RECOVER);
      for (RaftGroup group : cluster.groups) {
        cluster.awaitLeader(group.getGroupId());
        try (KvClient client = cluster.client(group)) {
          assertEquals(Optional.of("v"), client.getString("k"));
        }
      }
    }
  }

  private static void assertRefusesToStart(LocalKvCluster cluster, RaftPeerId peer, String what) {
    final Exception e = assertThrows(Exception.class, () -> cluster.startPeer(peer, StartupOption.RECOVER),
        "must not start with " + what);
    assertTrue(e instanceof IOException || e.getCause() != null, what + ": " + e);
  }
}
