package dev.ratisoffload.plugin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.format.ManifestCodec;
import dev.ratisoffload.format.VerificationRecord;
import dev.ratisoffload.format.VerificationRecords;
import dev.ratisoffload.publish.FaultyStore;
import dev.ratisoffload.publish.PublishResult;
import dev.ratisoffload.publish.SkipReason;
import dev.ratisoffload.refkv.FileListKvStateMachine;
import dev.ratisoffload.refkv.KvStateMachine;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.ObjectConflictException;
import dev.ratisoffload.store.ForwardingObjectStore;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.OverwritingStore;
import dev.ratisoffload.store.StoreAccessException;
import dev.ratisoffload.testkit.RatisCluster;
import io.prometheus.client.CollectorRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.util.SizeInBytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Publishing from a real 3-peer Ratis cluster with three groups (one whose snapshots are several
 * files) into a real store. Subclasses choose the store: S3 (S3Proxy) or a directory.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PublishEndToEndContract {

  static final String CLUSTER_ID = "e2e";

  @TempDir
  static Path tmp;

  RatisCluster cluster;
  FaultyStore store;
  final Map<RaftPeerId, SnapshotOffload> offloads = new ConcurrentHashMap<>();
  RaftGroupId fileListGroup;

  /** Starts the store; returns the properties that point the plugin at it. */
  abstract RaftProperties startStore(Path tmp) throws IOException;

  /** A client of the store the plugin writes to. */
  abstract ObjectStore openStore();

  abstract void stopStore() throws IOException;

  @BeforeAll
  void startCluster() throws IOException {
    RaftProperties offloadKeys = startStore(tmp);
    OffloadConfigKeys.Cluster.setId(offloadKeys, CLUSTER_ID);
    offloadKeys.set(OffloadConfigKeys.Upload.CHUNK_SIZE_KEY, "4KB");
    store = new FaultyStore(openStore());
    List<RaftGroupId> groupIds = List.of(RaftGroupId.randomId(), RaftGroupId.randomId(), RaftGroupId.randomId());
    fileListGroup = groupIds.get(2);
    cluster = RatisCluster.builder(tmp.resolve("ratis"))
        .peers(3)
        .groupIds(groupIds)
        .stateMachines(group -> group.equals(fileListGroup) ? new FileListKvStateMachine() : new KvStateMachine())
        .properties(peer -> new RaftProperties(offloadKeys))
        .attach(server -> {
          // Prometheus's default registry, shared by the three servers of this JVM.
          SnapshotOffload offload = SnapshotOffload.builder(server.raftServer(), server.properties())
              .store(store).withoutSchedule().attach();
          offloads.put(server.id(), offload);
          return offload;
        })
        .build()
        .start();
    cluster.awaitLeaders(RatisCluster.DEFAULT_TIMEOUT);
  }

  @AfterAll
  void stopAll() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
    store.close();
    stopStore();
  }

  /** Writes keys and takes a snapshot on the leader; returns the snapshot's index. */
  long writeAndSnapshot(RaftGroupId group, int keys, String prefix) throws IOException {
    cluster.writeKeys(group, keys, prefix);
    return cluster.snapshot(group);
  }

  /** Writes keys, takes a snapshot and publishes it from the group's leader, which must succeed. */
  PublishResult.Published writeSnapshotAndPublish(RaftGroupId group, int keys, String prefix) throws IOException {
    writeAndSnapshot(group, keys, prefix);
    return assertInstanceOf(PublishResult.Published.class, publishOn(cluster.leaderOf(group), group));
  }

  PublishResult publishOn(RaftPeerId peer, RaftGroupId group) {
    return offloads.get(peer).publishNow(group);
  }

  @Test
  void everyGroupIsPublishedByItsLeaderAndVerifies() throws IOException {
    for (RaftGroupId group : cluster.groupIds()) {
      long index = writeAndSnapshot(group, 2000, "k-");
      RaftPeerId leader = cluster.leaderOf(group);
      for (RaftPeerId peer : cluster.peerIds()) {
        PublishResult result = publishOn(peer, group);
        if (peer.equals(leader)) {
          PublishResult.Published published = assertInstanceOf(PublishResult.Published.class, result);
          assertEquals(index, published.id().index());
          Manifest manifest = new GenerationReader(store).verify(published.id());
          assertEquals(leader.toString(), manifest.publisher().peer());
          assertEquals(3, manifest.peers().size());
          assertTrue(manifest.files().stream().allMatch(f -> f.path().startsWith("sm/")), manifest.files().toString());
          if (group.equals(fileListGroup)) {
            assertTrue(manifest.files().size() > 1, "a multi-file snapshot: " + manifest.files());
          } else {
            assertTrue(manifest.files().get(0).md5() != null, "Ratis's MD5 is recorded");
          }
          assertEquals(published.totalBytes(), manifest.totalBytes());
          assertEquals(manifest.createdAt().toEpochMilli() / 1000.0,
              sample("ratis_offload_newest_generation_timestamp_seconds", group.getUuid().toString()));
        } else {
          assertEquals(SkipReason.NOT_LEADER, assertInstanceOf(PublishResult.Skipped.class, result).reason());
        }
      }
      assertEquals(SkipReason.UNCHANGED,
          assertInstanceOf(PublishResult.Skipped.class, publishOn(leader, group)).reason());
    }
  }

  @Test
  void aSmallChangeUploadsOnlyTheChangedChunks() throws IOException {
    RaftGroupId group = cluster.groupIds().get(0);
    writeSnapshotAndPublish(group, 3000, "base-");
    PublishResult.Published second = writeSnapshotAndPublish(group, 10, "zz-");
    assertTrue(second.uploadedBytes() * 10 < second.totalBytes(),
        "uploaded " + second.uploadedBytes() + " of " + second.totalBytes());
    new GenerationReader(store).verify(second.id());
  }

  /** Chunks deleted from the store are stored again by the next publish that contains them. */
  @Test
  void chunksDeletedFromTheStoreAreStoredAgainByTheNextPublish() throws IOException {
    RaftGroupId group = cluster.groupIds().get(1);
    PublishResult.Published first = writeSnapshotAndPublish(group, 2000, "heal-");
    GenerationReader reader = new GenerationReader(store);
    Set<String> lost = chunkKeys(reader.readManifest(first.id()), group);
    lost.forEach(store::delete);
    PublishResult.Published second = writeSnapshotAndPublish(group, 10, "heal-more-");
    Set<String> shared = chunkKeys(reader.verify(second.id()), group);
    shared.retainAll(lost);
    assertTrue(shared.size() * 2 > lost.size(), "most chunks are shared: " + shared.size() + " of " + lost.size());
    shared.forEach(key -> assertTrue(store.head(key).isPresent(), "stored again: " + key));
  }

  private static Set<String> chunkKeys(Manifest manifest, RaftGroupId group) {
    Set<String> keys = new HashSet<>();
    manifest.files().forEach(file -> file.chunks().forEach(
        chunk -> keys.add(Layout.chunkKey(CLUSTER_ID, group.getUuid().toString(), chunk.sha256()))));
    return keys;
  }

  @Test
  void aManifestIsImmutable() throws IOException {
    RaftGroupId group = cluster.groupIds().get(1);
    PublishResult.Published published = writeSnapshotAndPublish(group, 100, "imm-");
    byte[] stored = readAll(published.manifestKey());
    Manifest original = ManifestCodec.decode(stored, published.manifestKey());
    Manifest forged = new Manifest(original.format(), original.cluster(), original.group(), original.term(),
        original.index(), original.peers(), new Manifest.Publisher("intruder", original.publisher().leaderTerm()),
        original.createdAt(), original.toolVersion(), original.files());
    assertThrows(ObjectConflictException.class,
        () -> store.putIfAbsent(published.manifestKey(), Content.of(ManifestCodec.encode(forged))));
    assertEquals(ObjectStore.PutOutcome.ALREADY_PRESENT,
        store.putIfAbsent(published.manifestKey(), Content.of(stored)));
    assertArrayEquals(stored, readAll(published.manifestKey()));
    new GenerationReader(store).verify(published.id());
  }

  @Test
  void leadershipLostDuringTheUploadWritesNoManifest() throws Exception {
    RaftGroupId group = cluster.groupIds().get(1);
    long index = writeAndSnapshot(group, 500, "lead-");
    RaftPeerId oldLeader = cluster.leaderOf(group);
    RaftPeerId newLeader = cluster.peerIds().stream().filter(p -> !p.equals(oldLeader)).findFirst().orElseThrow();
    store.holdPuts();
    CompletableFuture<PublishResult> publishing = CompletableFuture.supplyAsync(() -> publishOn(oldLeader, group));
    try {
      assertTrue(store.awaitHeldPut(30), "the upload started");
      cluster.transferLeadership(group, newLeader);
    } finally {
      store.release();
    }
    PublishResult result = publishing.get(60, TimeUnit.SECONDS);
    assertEquals(SkipReason.LEADERSHIP_LOST, assertInstanceOf(PublishResult.Skipped.class, result).reason());
    assertNoManifestAt(group, index);
    // The new leader publishes its own snapshot.
    long newIndex = cluster.snapshot(group);
    PublishResult.Published fromNewLeader = assertInstanceOf(PublishResult.Published.class,
        publishOn(newLeader, group));
    assertEquals(newIndex, fromNewLeader.id().index());
    assertEquals(newLeader.toString(), new GenerationReader(store).verify(fromNewLeader.id()).publisher().peer());
  }

  @Test
  void aStoreFailingMidUploadLeavesNoManifestAndTheNextPublishReusesChunks() throws IOException {
    RaftGroupId group = cluster.groupIds().get(2);
    long index = writeAndSnapshot(group, 3000, "fail-");
    RaftPeerId leader = cluster.leaderOf(group);
    String manifests = Layout.manifestPrefix(CLUSTER_ID, group.getUuid().toString());
    int before = store.list(manifests).size();
    store.failPutsAfter(3);
    PublishResult failed;
    try {
      failed = publishOn(leader, group);
    } finally {
      store.heal();
    }
    assertInstanceOf(PublishResult.Failed.class, failed);
    assertEquals(before, store.list(manifests).size(), "no manifest was written");
    PublishResult.Published retry = assertInstanceOf(PublishResult.Published.class, publishOn(leader, group));
    assertEquals(index, retry.id().index());
    assertTrue(retry.uploadedChunks() < retry.totalChunks(), "chunks stored before the failure were reused: " + retry);
    new GenerationReader(store).verify(retry.id());
  }

  @Test
  void noManifestIsWrittenAfterCloseReturns() throws Exception {
    RaftGroupId group = cluster.groupIds().get(0);
    long index = writeAndSnapshot(group, 300, "close-");
    RaftPeerId leader = cluster.leaderOf(group);
    FaultyStore held = new FaultyStore(openStore());
    SnapshotOffload extra = SnapshotOffload.builder(cluster.server(leader).raftServer(),
        cluster.server(leader).properties()).store(held).registry(new CollectorRegistry()).withoutSchedule().attach();
    held.holdPuts();
    CompletableFuture<PublishResult> publishing = CompletableFuture.supplyAsync(() -> extra.publishNow(group));
    try {
      assertTrue(held.awaitHeldPut(30), "the upload started");
      extra.close();
    } finally {
      held.release();
    }
    PublishResult result = publishing.get(60, TimeUnit.SECONDS);
    assertTrue(!(result instanceof PublishResult.Published), "published after close: " + result);
    assertNoManifestAt(group, index);
    held.close();
  }

  @Test
  void aPublishWithinASmallBandwidthBudgetReadsEveryByteThroughItAndVerifies() throws Exception {
    RaftGroupId group = cluster.groupIds().get(0);
    long index = writeAndSnapshot(group, 3000, "budget-");
    RaftPeerId leader = cluster.leaderOf(group);
    assertEquals(OffloadConfigKeys.Upload.BANDWIDTH_DEFAULT.getSize(),
        offloads.get(leader).bandwidthBudget().bytesPerSecond(), "the peers run with the default budget");
    RaftProperties slow = new RaftProperties(cluster.server(leader).properties());
    OffloadConfigKeys.Upload.setBandwidth(slow, SizeInBytes.valueOf("256KB"));
    try (SnapshotOffload budgeted = SnapshotOffload.builder(cluster.server(leader).raftServer(), slow)
        .store(store).registry(new CollectorRegistry()).withoutSchedule().attach()) {
      assertEquals(256 * 1024, budgeted.bandwidthBudget().bytesPerSecond());
      PublishResult.Published published = assertInstanceOf(PublishResult.Published.class,
          budgeted.publishNow(group));
      assertEquals(index, published.id().index());
      // Whether it also had to wait depends on how fast the store takes chunks; the unit tests show the pace.
      assertEquals(published.totalBytes(), budgeted.bandwidthBudget().acquiredBytes(),
          "every byte of the snapshot was read within the budget");
      new GenerationReader(store).verify(published.id());
    }
  }

  /**
   * A scheduled pass scrubs the group's newest generation: a changed chunk is recorded and moved aside,
   * the damage shows in the metrics, and the next pass publishes the same snapshot again, which stores
   * the chunk anew; the scrub that follows finds the generation whole.
   */
  @Test
  void aScrubFindsADamagedChunkAndTheNextPassHealsIt() throws Exception {
    RaftGroupId group = cluster.groupIds().get(0);
    String uuid = group.getUuid().toString();
    PublishResult.Published published = writeSnapshotAndPublish(group, 500, "scrub-");
    SnapshotOffload leader = offloads.get(cluster.leaderOf(group));
    Manifest.ChunkRef victim = new GenerationReader(store).readManifest(published.id()).files().get(0).chunks().get(0);
    String key = Layout.chunkKey(CLUSTER_ID, uuid, victim.sha256());
    byte[] changed = readAll(key);
    changed[changed.length / 2] ^= 0x20;
    store.delete(key);
    store.putIfAbsent(key, Content.of(changed));

    assertEquals(SkipReason.UNCHANGED, assertInstanceOf(PublishResult.Skipped.class, leader.passNow(group)).reason());
    leader.awaitScrubs(); // scrubs run on a thread of their own
    Layout.VerificationMark found = VerificationRecords.latest(store, CLUSTER_ID, uuid).get(published.id());
    assertTrue(found != null && !found.ok(), "the damage is recorded: " + found);
    VerificationRecord record = VerificationRecords.read(store, found.key());
    assertEquals(VerificationRecord.Damage.WRONG_CONTENT, record.damaged().get(0).problem());
    assertArrayEquals(changed, readAll(record.damaged().get(0).keptAt()), "kept for inspection");
    assertEquals(1.0, sample("ratis_offload_damaged_generations", uuid));

    PublishResult.Published healed = assertInstanceOf(PublishResult.Published.class, leader.passNow(group));
    leader.awaitScrubs();
    assertEquals(published.id(), healed.id(), "the same generation, published again");
    assertEquals(victim.size(), healed.uploadedBytes(), "only the chunk moved aside was stored again");
    new GenerationReader(store).verify(published.id());
    assertTrue(VerificationRecords.latest(store, CLUSTER_ID, uuid).get(published.id()).ok(), "verified whole again");
    assertEquals(0.0, sample("ratis_offload_damaged_generations", uuid));
    assertTrue(sample("ratis_offload_last_verified_timestamp_seconds", uuid) > 0);
  }

  private static Double sample(String name, String group) {
    return CollectorRegistry.defaultRegistry.getSampleValue(name, new String[] {"group"}, new String[] {group});
  }

  /** A store that lets the plugin write but not delete (no s3:DeleteObject) is up, and publishing works. */
  @Test
  void aStoreWithoutDeletePermissionIsUpAndTakesGenerations() throws IOException {
    RaftGroupId group = cluster.groupIds().get(2);
    long index = writeAndSnapshot(group, 200, "nodelete-");
    RaftPeerId leader = cluster.leaderOf(group);
    CollectorRegistry registry = new CollectorRegistry();
    ObjectStore noDelete = new ForwardingObjectStore(openStore()) {
      @Override
      public void delete(String key) {
        throw new StoreAccessException("access denied deleting " + key, null);
      }
    };
    try (SnapshotOffload offload = SnapshotOffload.builder(cluster.server(leader).raftServer(),
        cluster.server(leader).properties()).store(noDelete).registry(registry).withoutSchedule().attach()) {
      assertEquals(1.0, registry.getSampleValue("ratis_offload_store_up"), "the start-up check passed");
      assertEquals(1.0, registry.getSampleValue("ratis_offload_store_conformant"), "delete is not required");
      assertEquals(index, assertInstanceOf(PublishResult.Published.class, offload.publishNow(group)).id().index());
      assertEquals(1.0, registry.getSampleValue("ratis_offload_store_up"));
    } finally {
      noDelete.close();
    }
  }

  /**
   * A store that ignores put-if-absent's condition is reported (store_conformant 0) and, with
   * offload.preflight.required, refused at attach with the property named.
   */
  @Test
  void aStoreThatOverwritesIsNotConformantAndRefusedWhenThePreflightIsRequired() {
    RaftPeerId peer = cluster.peerIds().get(0);
    List<ObjectInfo> probesBefore = store.list("ratis/probes/"); // a store without delete leaves its probes
    ObjectStore overwriting = new OverwritingStore(openStore());
    CollectorRegistry registry = new CollectorRegistry();
    try (SnapshotOffload offload = SnapshotOffload.builder(cluster.server(peer).raftServer(),
        cluster.server(peer).properties()).store(overwriting).registry(registry).withoutSchedule().attach()) {
      assertEquals(1.0, registry.getSampleValue("ratis_offload_store_up"), "the store is reachable");
      assertEquals(0.0, registry.getSampleValue("ratis_offload_store_conformant"));
    }
    RaftProperties required = new RaftProperties(cluster.server(peer).properties());
    OffloadConfigKeys.Preflight.setRequired(required, true);
    IllegalStateException refused = assertThrows(IllegalStateException.class,
        () -> SnapshotOffload.builder(cluster.server(peer).raftServer(), required).store(overwriting)
            .registry(new CollectorRegistry()).withoutSchedule().attach());
    assertTrue(refused.getMessage().contains("lacks put-if-absent")
        && refused.getMessage().contains(OffloadConfigKeys.Preflight.REQUIRED_KEY), refused.getMessage());
    assertEquals(probesBefore, store.list("ratis/probes/"), "the start-up checks removed their probes");
    overwriting.close();
  }

  void assertNoManifestAt(RaftGroupId group, long index) {
    assertTrue(store.list(Layout.manifestPrefix(CLUSTER_ID, group.getUuid().toString())).stream()
        .noneMatch(o -> o.key().contains(String.format("%019d", index))), "no manifest for index " + index);
  }

  byte[] readAll(String key) throws IOException {
    try (InputStream in = store.get(key)) {
      return in.readAllBytes();
    }
  }
}
