package dev.ratisoffload.restore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.IntegrityException;
import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.raftlog.LogProtoUtils;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.server.storage.RaftStorageImpl;
import org.apache.ratis.server.storage.StorageImplUtils;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.util.SizeInBytes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterRestorerTest {

  static final String CLUSTER = "prod-1";
  static final String G1 = "11111111-1111-4111-8111-111111111111";
  static final String G2 = "22222222-2222-4222-8222-222222222222";
  static final Instant T0 = Instant.parse("2026-05-01T00:00:00Z");

  @TempDir
  Path tmp;

  Path storeDir;
  Path dataDir;
  DirectoryObjectStore store;
  ClusterRestorer restorer;

  @BeforeEach
  void publish() throws IOException {
    storeDir = Files.createDirectories(tmp.resolve("store"));
    dataDir = tmp.resolve("data");
    store = new DirectoryObjectStore(storeDir);
    Path scratch = Files.createDirectories(tmp.resolve("scratch"));
    // G1: three generations an hour apart; G2: one, taken in a high term.
    Generations.publish(store, scratch, Generations.snapshot(CLUSTER, G1, 1, 100, T0, 5_000, 1));
    Generations.publish(store, scratch, Generations.snapshot(CLUSTER, G1, 2, 200, T0.plusSeconds(3600), 6_000, 2));
    Generations.publish(store, scratch, Generations.snapshot(CLUSTER, G1, 2, 300, T0.plusSeconds(7200), 7_000, 3));
    Generations.publish(store, scratch, Generations.snapshot(CLUSTER, G2, 7, 50, T0.plusSeconds(60), 20_000, 4));
    restorer = new ClusterRestorer(store);
  }

  RestoreRequest request(List<String> groups, GenerationChoice choice) {
    return new RestoreRequest(CLUSTER, groups, choice, Map.of(), dataDir);
  }

  List<RestoredGroup> restore(RestoreRequest request) {
    return restorer.restore(restorer.plan(request), TransferListener.NONE);
  }

  @Test
  void restoresTheNewestGenerationOfEveryGroup() throws Exception {
    List<RestoredGroup> restored = restore(request(List.of(), new GenerationChoice.Newest()));

    assertEquals(2, restored.size());
    assertArrayEquals(Generations.random(7_000, 3),
        Files.readAllBytes(dataDir.resolve(G1).resolve("sm/snapshot.2_300")));
    assertArrayEquals(Generations.random(20_000, 4),
        Files.readAllBytes(dataDir.resolve(G2).resolve("sm/snapshot.7_50")));
    assertEquals(List.of(G1, G2), groupDirectories());
    assertEquals(List.of(), hiddenStaging());
  }

  @Test
  void ratisLoadsTheRestoredDirectory() throws Exception {
    restore(request(List.of(G2), new GenerationChoice.Newest()));

    File groupDir = dataDir.resolve(G2).toFile();
    RaftStorageImpl storage = StorageImplUtils.newRaftStorage(groupDir, SizeInBytes.ZERO,
        RaftStorage.StartupOption.RECOVER, RaftServerConfigKeys.Log.CorruptionPolicy.EXCEPTION);
    storage.initialize();
    try {
      assertEquals(8, storage.getMetadataFile().getMetadata().getTerm(), "the publisher's leader term");
      assertEquals(3, storage.readRaftConfiguration().getCurrentPeers().size());
      SimpleStateMachineStorage sm = new SimpleStateMachineStorage();
      sm.init(storage);
      SnapshotInfo snapshot = sm.getLatestSnapshot();
      assertEquals(7, snapshot.getTerm());
      assertEquals(50, snapshot.getIndex());
      assertEquals(dataDir.resolve(G2).resolve("sm/snapshot.7_50").toFile().getAbsoluteFile(),
          snapshot.getFiles().get(0).getPath().toFile().getAbsoluteFile());
    } finally {
      storage.close();
    }
  }

  @Test
  void restoresTheGenerationAtAnIndex() throws Exception {
    restore(request(List.of(G1), new GenerationChoice.AtIndex(200)));

    assertArrayEquals(Generations.random(6_000, 2),
        Files.readAllBytes(dataDir.resolve(G1).resolve("sm/snapshot.2_200")));
    LogEntryProto conf = LogEntryProto.parseFrom(Files.readAllBytes(dataDir.resolve(G1).resolve("current/raft-meta.conf")));
    assertEquals(200, LogProtoUtils.toRaftConfiguration(conf).getLogEntryIndex());
  }

  @Test
  void atPicksTheNewestGenerationCreatedAtOrBeforeTheTime() throws Exception {
    Instant at = T0.plusSeconds(3600); // exactly G1's second generation; after G2's only one
    List<RestoredGroup> restored = restore(request(List.of(), new GenerationChoice.AtOrBefore(at)));

    assertEquals(200, restored.get(0).plan().id().index());
    assertEquals(50, restored.get(1).plan().id().index());
    assertTrue(Files.exists(dataDir.resolve(G1).resolve("sm/snapshot.2_200")));
  }

  @Test
  void atBeforeEveryGenerationIsMissingData() {
    MissingBackupException e = assertThrows(MissingBackupException.class,
        () -> restore(request(List.of(G1), new GenerationChoice.AtOrBefore(T0.minusSeconds(1)))));
    assertTrue(e.getMessage().contains("no generation created at or before"), e.getMessage());
    assertFalse(Files.exists(dataDir));
  }

  @Test
  void unknownIndexIsMissingDataAndNamesTheIndexesThatExist() {
    MissingBackupException e = assertThrows(MissingBackupException.class,
        () -> restorer.plan(request(List.of(G1), new GenerationChoice.AtIndex(250))));
    assertTrue(e.getMessage().contains("100, 200, 300"), e.getMessage());
  }

  @Test
  void peersGetTheNewAddresses() throws Exception {
    Map<String, String> moved = Map.of("n0", "127.0.0.1:8000", "n1", "127.0.0.1:8001", "n2", "127.0.0.1:8002");
    restore(new RestoreRequest(CLUSTER, List.of(G2), new GenerationChoice.Newest(), moved, dataDir));

    LogEntryProto conf = LogEntryProto.parseFrom(Files.readAllBytes(dataDir.resolve(G2).resolve("current/raft-meta.conf")));
    assertEquals(List.of("127.0.0.1:8000", "127.0.0.1:8001", "127.0.0.1:8002"),
        conf.getConfigurationEntry().getPeersList().stream().map(p -> p.getAddress()).toList());
  }

  @Test
  void peersMustCoverEveryPeerAndNameOnlyKnownOnes() {
    assertThrows(InvalidRestoreRequestException.class, () -> restorer.plan(new RestoreRequest(CLUSTER,
        List.of(G2), new GenerationChoice.Newest(), Map.of("n0", "h:1", "n1", "h:2"), dataDir)));
    assertThrows(InvalidRestoreRequestException.class, () -> restorer.plan(new RestoreRequest(CLUSTER,
        List.of(G2), new GenerationChoice.Newest(),
        Map.of("n0", "h:1", "n1", "h:2", "n2", "h:3", "n9", "h:4"), dataDir)));
  }

  @Test
  void anExistingGroupDirectoryIsRefusedAndNothingIsWritten() throws Exception {
    Files.createDirectories(dataDir.resolve(G2));
    Files.writeString(dataDir.resolve(G2).resolve("keep"), "mine");

    TargetRefusedException e = assertThrows(TargetRefusedException.class,
        () -> restore(request(List.of(), new GenerationChoice.Newest())));
    assertTrue(e.getMessage().contains(G2), e.getMessage());
    assertFalse(Files.exists(dataDir.resolve(G1)), "no group is restored when one is refused");
    assertEquals("mine", Files.readString(dataDir.resolve(G2).resolve("keep")));
    assertEquals(List.of(), hiddenStaging());
  }

  @Test
  void aDirectoryHoldingAnotherClustersGroupsIsRefused() throws Exception {
    restore(request(List.of(G1), new GenerationChoice.Newest()));
    Generations.publish(store, Files.createDirectories(tmp.resolve("s2")),
        Generations.snapshot("other", G2, 1, 10, T0, 100, 9));

    TargetRefusedException e = assertThrows(TargetRefusedException.class, () -> new ClusterRestorer(store)
        .restore(restorer.plan(new RestoreRequest("other", List.of(G2), new GenerationChoice.Newest(),
            Map.of(), dataDir)), TransferListener.NONE));
    assertTrue(e.getMessage().contains("cluster prod-1"), e.getMessage());
    assertFalse(Files.exists(dataDir.resolve(G2)));
    // The same cluster's other group is still welcome.
    restore(request(List.of(G2), new GenerationChoice.Newest()));
    assertTrue(Files.exists(dataDir.resolve(G2).resolve("current/raft-meta")));
  }

  @Test
  void anotherRestoreHoldingTheDirectoryIsRefused() throws Exception {
    Files.createDirectories(dataDir);
    try (FileChannel channel = FileChannel.open(dataDir.resolve(DataDirectory.LOCK_FILE),
        StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock ignored = channel.lock()) {
      TargetRefusedException e = assertThrows(TargetRefusedException.class,
          () -> restore(request(List.of(G1), new GenerationChoice.Newest())));
      assertTrue(e.getMessage().contains("another restore"), e.getMessage());
    }
    assertFalse(Files.exists(dataDir.resolve(G1)));
  }

  @Test
  void stagingLeftByAKilledRestoreIsRemoved() throws Exception {
    Path stale = dataDir.resolve(".offload-restore-" + G1 + "-0123abcd");
    Files.createDirectories(stale.resolve("sm"));
    Files.writeString(stale.resolve("sm/half"), "half-written");
    Path notOurs = Files.createDirectories(dataDir.resolve(".offload-restore-something-else"));

    restore(request(List.of(G1), new GenerationChoice.Newest()));

    assertFalse(Files.exists(stale));
    assertTrue(Files.exists(notOurs), "only names the tool itself creates are removed");
  }

  @Test
  void corruptChunkLeavesNoGroupDirectory() throws Exception {
    Path chunk;
    try (Stream<Path> files = Files.walk(storeDir.resolve("ratis/chunks/" + CLUSTER + "/" + G2))) {
      chunk = files.filter(Files::isRegularFile).findFirst().orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(chunk);
    bytes[bytes.length / 2] ^= 1;
    Files.write(chunk, bytes);

    IntegrityException e = assertThrows(IntegrityException.class,
        () -> restore(request(List.of(), new GenerationChoice.Newest())));
    assertTrue(e.getMessage().contains(chunk.getFileName().toString()), e.getMessage());
    assertEquals(List.of(), groupDirectories());
    assertEquals(List.of(), hiddenStaging());
  }

  @Test
  void aManifestFoundUnderAnotherGroupIsCorruptNotRestored() throws Exception {
    Path manifests = storeDir.resolve("ratis/manifests/" + CLUSTER);
    Path g2Manifest;
    try (Stream<Path> files = Files.list(manifests.resolve(G2))) {
      g2Manifest = files.findFirst().orElseThrow();
    }
    Files.createDirectories(manifests.resolve(G1));
    // G2's manifest stored as if it were a newer generation of G1.
    Files.copy(g2Manifest, manifests.resolve(G1).resolve(String.format("%019d-%019d.manifest", 999, 7)));

    assertThrows(IntegrityException.class, () -> restore(request(List.of(G1), new GenerationChoice.Newest())));
    assertFalse(Files.exists(dataDir.resolve(G1)));
  }

  @Test
  void planCarriesTheLeaderTermNotTheSnapshotTerm() {
    RestorePlan plan = restorer.plan(request(List.of(G2), new GenerationChoice.Newest()));
    GroupPlan group = plan.groups().get(0);
    assertEquals(7, group.id().term());
    assertEquals(8, group.term());
    assertEquals(Generations.PEERS, group.peers());
    Manifest manifest = group.manifest();
    assertEquals(20_000, manifest.totalBytes());
  }

  // ---- which groups belong in a peer's directory

  static final String G3 = "33333333-3333-4333-8333-333333333333";
  static final Manifest.Peer N0 = Generations.PEERS.get(0);
  static final Manifest.Peer N1 = Generations.PEERS.get(1);
  static final Manifest.Peer N2 = Generations.PEERS.get(2);
  static final Manifest.Peer N3_LISTENER = new Manifest.Peer("n3", "127.0.0.1:9003", "127.0.0.1:9103",
      "127.0.0.1:9203", "127.0.0.1:9303", 2, Manifest.Role.LISTENER);

  /** A second cluster whose groups live on different peers: G1 on n0-n2, G3 on n1, n2 and listener n3. */
  ClusterRestorer multiRaft() throws IOException {
    Path scratch = Files.createDirectories(tmp.resolve("scratch-multi"));
    DirectoryObjectStore multi = new DirectoryObjectStore(Files.createDirectories(tmp.resolve("multi")));
    Generations.publish(multi, scratch, Generations.snapshot("multi", G1, 1, 10, T0, 100, 5));
    Generations.publish(multi, scratch, Generations.snapshot("multi", G3, 2, 20, T0, 100, 6)
        .withPeers(List.of(N1, N2, N3_LISTENER)));
    return new ClusterRestorer(multi);
  }

  RestoreRequest multiRequest(String peer) {
    return new RestoreRequest("multi", List.of(), new GenerationChoice.Newest(), Map.of(), dataDir, peer);
  }

  @Test
  void aPeerGetsOnlyTheGroupsItsConfigurationNames() throws Exception {
    ClusterRestorer multi = multiRaft();

    RestorePlan n0 = multi.plan(multiRequest("n0"));
    assertEquals(List.of(G1), n0.groups().stream().map(GroupPlan::group).toList());
    assertEquals(List.of(new RestorePlan.Skipped(G3, List.of("n1", "n2", "n3"),
        "its configuration does not name peer n0")), n0.skipped());

    List<RestoredGroup> listener = multi.restore(multi.plan(multiRequest("n3")), TransferListener.NONE);
    assertEquals(List.of(G3), listener.stream().map(r -> r.plan().group()).toList());
    assertEquals(List.of(G3), groupDirectories(), "a listener holds its groups too; G1 is not written");

    assertEquals(2, multi.plan(multiRequest("n1")).groups().size());
  }

  @Test
  void withoutAPeerGroupsOnDifferentPeersAreAUsageErrorListingEachPeersGroups() throws Exception {
    ClusterRestorer multi = multiRaft();

    InvalidRestoreRequestException e = assertThrows(InvalidRestoreRequestException.class,
        () -> multi.plan(multiRequest(null)));
    assertTrue(e.getMessage().contains("peer n0 holds 1 group(s): " + G1 + ";"), e.getMessage());
    assertTrue(e.getMessage().contains("peer n1 holds 2 group(s): " + G1 + ", " + G3), e.getMessage());
    assertTrue(e.getMessage().contains("peer n3 holds 1 group(s): " + G3), e.getMessage());
    assertTrue(e.getMessage().contains("--peer"), e.getMessage());
    assertFalse(Files.exists(dataDir));
    // Groups that all name the same peers need no --peer.
    assertEquals(1, multi.plan(new RestoreRequest("multi", List.of(G3), new GenerationChoice.Newest(), Map.of(),
        dataDir)).groups().size());
  }

  @Test
  void aPeerNoGroupNamesIsAUsageError() throws Exception {
    InvalidRestoreRequestException e = assertThrows(InvalidRestoreRequestException.class,
        () -> multiRaft().plan(multiRequest("n9")));
    assertTrue(e.getMessage().contains("names peer n9"), e.getMessage());
    assertTrue(e.getMessage().contains("peer n0 holds"), e.getMessage());
    assertThrows(InvalidRestoreRequestException.class, () -> multiRequest("n1\u001b[2J"));
  }

  @Test
  void newAddressesKeepTheListenerAndItsPriorityButNoneOfTheOldHostsAddresses() throws Exception {
    ClusterRestorer multi = multiRaft();
    Map<String, String> moved = Map.of("n1", "127.0.0.1:8001", "n2", "127.0.0.1:8002", "n3", "127.0.0.1:8003");
    multi.restore(multi.plan(new RestoreRequest("multi", List.of(G3), new GenerationChoice.Newest(), moved,
        dataDir, "n2")), TransferListener.NONE);

    RaftConfiguration conf = LogProtoUtils.toRaftConfiguration(LogEntryProto.parseFrom(
        Files.readAllBytes(dataDir.resolve(G3).resolve("current/raft-meta.conf"))));
    RaftPeer listener = conf.getPeer(RaftPeerId.valueOf("n3"), RaftPeerRole.LISTENER);
    assertEquals("127.0.0.1:8003", listener.getAddress());
    assertEquals(2, listener.getPriority());
    // Read back empty, so Ratis's client uses the server address; the data stream has no such fallback.
    assertEquals("", listener.getClientAddress());
    assertEquals("", listener.getAdminAddress());
    assertEquals("127.0.0.1:8003", listener.getDataStreamAddress());
    assertEquals(2, conf.getCurrentPeers(RaftPeerRole.FOLLOWER).size());
  }

  /** What restore_cluster runs for every peer before it writes the first. */
  @Test
  void checkRefusesWhatRestoreWouldRefuseAndWritesNothing() throws Exception {
    RestorePlan plan = restorer.plan(request(List.of(G1), new GenerationChoice.Newest()));
    restorer.check(plan);
    assertFalse(Files.exists(dataDir), "check creates nothing");

    Path groupDir = Files.createDirectories(tmp.resolve("peer2"));
    Files.createFile(groupDir.resolve("in_use.lock"));
    RestoreRequest elsewhere = new RestoreRequest(CLUSTER, List.of(G1), new GenerationChoice.Newest(), Map.of(),
        groupDir);
    assertThrows(InvalidRestoreRequestException.class,
        () -> restorer.check(new RestorePlan(elsewhere, plan.groups())));

    Files.createDirectories(dataDir.resolve(G1));
    TargetRefusedException e = assertThrows(TargetRefusedException.class, () -> restorer.check(plan));
    assertTrue(e.getMessage().contains(G1 + " already exists"), e.getMessage());
    assertThrows(HeapTooSmallException.class,
        () -> new ClusterRestorer(store, new ChunkMemory(1)).check(restorer.plan(request(List.of(G2),
            new GenerationChoice.Newest()))));
  }

  @Test
  void aGroupDirectoryOrABlankDataDirIsAUsageErrorAndNothingIsWritten() throws Exception {
    restore(request(List.of(G1), new GenerationChoice.Newest()));
    Path groupDir = dataDir.resolve(G1);
    Path lockOnly = Files.createDirectories(tmp.resolve("locked"));
    Files.createFile(lockOnly.resolve("in_use.lock"));
    Path uuidNamed = Files.createDirectories(tmp.resolve(G2).resolve("current"));

    for (Path bad : List.of(groupDir, lockOnly, uuidNamed.getParent(), Path.of(""), Path.of("  "))) {
      InvalidRestoreRequestException e = assertThrows(InvalidRestoreRequestException.class,
          () -> restorer.plan(new RestoreRequest(CLUSTER, List.of(G2), new GenerationChoice.Newest(), Map.of(),
              bad)), bad.toString());
      assertTrue(e.getMessage().contains("nothing was written"), e.getMessage());
    }
    assertFalse(Files.exists(groupDir.resolve(G2)), "no <uuid>/<uuid>");
    assertFalse(Files.exists(Path.of(G2)), "nothing in the working directory");
  }

  List<String> groupDirectories() throws IOException {
    if (!Files.exists(dataDir)) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(dataDir)) {
      return entries.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".")).sorted().toList();
    }
  }

  List<Path> hiddenStaging() throws IOException {
    if (!Files.exists(dataDir)) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(dataDir)) {
      return entries.filter(p -> p.getFileName().toString().startsWith(DataDirectory.STAGING_PREFIX)).toList();
    }
  }
}
