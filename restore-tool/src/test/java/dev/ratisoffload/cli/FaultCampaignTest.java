package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.GenerationReader.StoredGeneration;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.Layout.VerificationMark;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.format.VerificationRecords;
import dev.ratisoffload.plugin.OffloadConfigKeys;
import dev.ratisoffload.plugin.ScheduledPasses;
import dev.ratisoffload.plugin.SnapshotOffload;
import dev.ratisoffload.refkv.KvClient;
import dev.ratisoffload.refkv.KvMap;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.ForwardingObjectStore;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectNotFoundException;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.testkit.Await;
import dev.ratisoffload.testkit.EmbeddedS3;
import dev.ratisoffload.testkit.RatisCluster;
import dev.ratisoffload.testkit.TempDirs;
import io.prometheus.client.CollectorRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.AfterTry;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * The fault campaign: a live 3-peer, two-group cluster of the reference store, the plugin attached to
 * every peer and S3Proxy as the store, driven through a random sequence of writes, publish passes,
 * scrubs, a deleted chunk, a flipped byte in a chunk, a deleted manifest, a store outage, a leader
 * transfer and an {@code offload gc --apply} running while the plugins publish. After every step the
 * store is checked against a model of what was written; after the last, the faults stop, the plugin
 * runs on its schedule, and every group's newest generation must be intact and verified.
 *
 * <p><b>One cluster, one store, a cluster id per try.</b> Starting Ratis and S3Proxy takes seconds, so
 * both live for the whole class. Each try attaches the plugin to every peer afresh with a new
 * {@code offload.cluster.id} ({@code c<try>}), and so sees only its own generations, chunks and
 * verification records; re-attaching costs a few store requests and no new S3 client (the plugins
 * share the test's store). The groups' Raft state carries over from try to try, so the model does too:
 * the key-value state written so far, and the state at every index any peer took a snapshot at.
 *
 * <p><b>Passes when the test says.</b> During the steps the plugins run without their scheduler: a
 * publish step is {@link SnapshotOffload#publishNow} on every peer, a scrub step the scheduled pass
 * ({@link ScheduledPasses#run}) on every peer, with {@code offload.scrub.interval = 1ms} so the
 * leader's pass scrubs the group's newest generation; the leader passes first, so the other peers'
 * passes read what it stored. Only the final phase runs the real scheduler ({@code 150ms}), until every
 * group's newest generation has an {@code ok} record written after the faults stopped.
 *
 * <p>On this 2-CPU machine the 100 tries take about two minutes. A failure names the try's cluster id
 * and its steps; jqwik prints the seed and the shrunk sequence.
 *
 * <p><b>What is checked after every step</b>, for each group:
 * <ul>
 *   <li>every stored generation that verifies holds exactly the key-value state the model recorded at
 *       its index (its snapshot file read back through {@link GenerationReader#readFile}, which checks
 *       every chunk and the file's digests, and decoded with {@link KvMap#read});
 *   <li>every stored generation that does not verify names a chunk the test damaged: a flipped one
 *       (a publish finds it listed with the right size and re-uses it until a scrub moves it aside, so
 *       a flip legitimately reaches later generations), or one the test deleted after the generation
 *       was first seen (a publish after the deletion must store it again: it never counts on a chunk
 *       it has not seen stored);
 *   <li>once the group has a generation, at least one verifies, unless the group is under repair: a
 *       fault (a damaged chunk, a deleted manifest) hit it and it has not yet had a scrub followed by a
 *       pass on the same leader (what the product promises: a scrub finds the damage, the next pass
 *       publishes the snapshot again). A leader change between the two starts the repair over, since
 *       the new leader learns of the damage from its own scrub. A deleted manifest is repaired the same
 *       way: the next pass publishes the group again. This is also why a gc that leaves only a damaged
 *       newest generation is not caught here (retention's own tests cover which generations it keeps);
 *   <li>after a scrub, the newest generation's latest verification record says {@code damaged} exactly
 *       when the test found it damaged just before, and then the scrubbing peer's
 *       {@code ratis_offload_damaged_generations} is at least 1: damage is reported within one scrub
 *       (damage to an older generation only is not: scrubs read the newest);
 *   <li>after a publish step, every peer's {@code ratis_offload_newest_generation_timestamp_seconds} is
 *       the creation time of the group's newest stored generation, 0 when the store holds none;
 *   <li>during an outage every peer reports {@code ratis_offload_store_up 0}, and 1 again after it.
 * </ul>
 * Concurrent {@code offload gc --apply} runs with {@code --chunk-grace 1min} and the plugins with
 * {@code offload.retention.chunk-grace = 1min} (the safe minimum): within a try of seconds no chunk is old
 * enough to collect, so collection deletes manifests only.
 */
class FaultCampaignTest {

  private static final int GROUPS = 2;
  private static final int KEYS = 120;
  private static final Duration WAIT = RatisCluster.DEFAULT_TIMEOUT;
  private static final String BUCKET = "campaign";

  private static Path root;
  private static EmbeddedS3 s3;
  private static RatisCluster cluster;
  private static ObjectStore store;
  private static GenerationReader reader;
  /** What the test wrote to each group, and the state at each index a peer took a snapshot at. */
  private static final Map<RaftGroupId, SortedMap<String, String>> state = new HashMap<>();
  private static final Map<RaftGroupId, Map<Long, SortedMap<String, String>>> stateAt = new HashMap<>();
  private static int tries;
  /** False after a try that did not finish: its last writes may or may not have been applied. */
  private static boolean modelInStep = true;

  // ---- actions -----------------------------------------------------------------------------

  /** One step of a campaign; group and pick numbers are reduced modulo what exists when it runs. */
  sealed interface Action permits Write, Publish, Scrub, DeleteChunk, FlipByte, DeleteManifest, Outage,
      TransferLeader, ConcurrentGc {}

  /** Overwrites {@code count} keys from {@code start} with new values; every peer takes a snapshot. */
  record Write(int group, int start, int count) implements Action {}

  record Publish(int group) implements Action {}

  record Scrub(int group) implements Action {}

  record DeleteChunk(int group, int pick) implements Action {}

  record FlipByte(int group, int pick) implements Action {}

  record DeleteManifest(int group, int pick) implements Action {}

  /** The store stops; every peer runs a publish pass of the group; the store comes back. */
  record Outage(int group) implements Action {}

  record TransferLeader(int group, int pick) implements Action {}

  /** {@code offload gc --apply --keep-last N} while every peer runs a publish pass of every group. */
  record ConcurrentGc(int keepLast) implements Action {}

  @Provide
  Arbitrary<List<Action>> campaigns() {
    Arbitrary<Integer> group = Arbitraries.integers().between(0, GROUPS - 1);
    Arbitrary<Integer> pick = Arbitraries.integers().between(0, 999);
    Arbitrary<Action> action = Arbitraries.frequencyOf(
        Tuple.of(4, Combinators.combine(group, Arbitraries.integers().between(0, KEYS - 1),
            Arbitraries.integers().between(1, 40)).as(Write::new)),
        Tuple.of(4, group.map(Publish::new)),
        Tuple.of(3, group.map(Scrub::new)),
        Tuple.of(2, Combinators.combine(group, pick).as(DeleteChunk::new)),
        Tuple.of(2, Combinators.combine(group, pick).as(FlipByte::new)),
        Tuple.of(1, Combinators.combine(group, pick).as(DeleteManifest::new)),
        Tuple.of(1, group.map(Outage::new)),
        Tuple.of(1, Combinators.combine(group, pick).as(TransferLeader::new)),
        Tuple.of(1, Arbitraries.integers().between(1, 2).map(ConcurrentGc::new)));
    return action.list().ofMinSize(3).ofMaxSize(6);
  }

  // ---- the property ------------------------------------------------------------------------

  @Property(tries = 100, seed = "20261207")
  void everyGroupStaysRestorableAndDamageIsReportedAndHealed(@ForAll("campaigns") List<Action> actions)
      throws Exception {
    if (!modelInStep) {
      resyncModel();
    }
    modelInStep = false;
    try (Campaign campaign = new Campaign("c" + (++tries))) {
      for (Action action : actions) {
        campaign.step(action);
      }
      campaign.finalPhase();
    }
    modelInStep = true;
  }

  /**
   * The campaign's shortest sequence that deletes a group's only manifest and then gives the plugin its
   * scrub and its pass: the store holds no generation of the group, so the pass must publish the
   * leader's snapshot again, and every peer's freshness gauge must say 0 until it does.
   */
  @Example
  void aGroupWhoseOnlyManifestWasDeletedIsPublishedAgain() throws Exception {
    everyGroupStaysRestorableAndDamageIsReportedAndHealed(
        List.of(new Publish(0), new DeleteManifest(0, 0), new Scrub(0), new Publish(0)));
  }

  @AfterTry
  void storeIsUpForTheNextTry() throws IOException {
    if (!s3.isRunning()) {
      s3.restart();
    }
  }

  // ---- one try -----------------------------------------------------------------------------

  /** Where a group stands in the repair the product promises after a fault. */
  private enum Repair { NONE, PENDING, SCRUBBED }

  /** How the test damaged a chunk, and at which step. */
  private record Damage(boolean flipped, int step) {}

  /** One try: its plugins, its cluster id, and what it did to the store. */
  private static final class Campaign implements AutoCloseable {
    private final String clusterId;
    private final Map<RaftPeerId, SnapshotOffload> offloads = new LinkedHashMap<>();
    private final Map<RaftPeerId, CollectorRegistry> registries = new LinkedHashMap<>();
    private final Map<GenerationId, Integer> firstSeen = new HashMap<>();
    private final Map<String, Map<String, Damage>> damaged = new HashMap<>();
    private final Map<RaftGroupId, Repair> repair = new HashMap<>();
    private final Map<RaftGroupId, RaftPeerId> scrubbedBy = new HashMap<>();
    private final Set<RaftGroupId> everStored = new LinkedHashSet<>();
    private final List<String> done = new ArrayList<>();
    private int step;

    Campaign(String clusterId) {
      this.clusterId = clusterId;
      for (RaftGroupId group : cluster.groupIds()) {
        repair.put(group, Repair.NONE);
      }
      try {
        attach(false);
      } catch (RuntimeException e) {
        detach();
        throw e;
      }
    }

    private RaftProperties keys(boolean scheduled) {
      RaftProperties keys = storeKeys();
      OffloadConfigKeys.Cluster.setId(keys, clusterId);
      keys.set(OffloadConfigKeys.Schedule.INTERVAL_KEY, scheduled ? "150ms" : "1h");
      keys.set(OffloadConfigKeys.Schedule.JITTER_KEY, "0");
      keys.set(OffloadConfigKeys.Upload.CHUNK_SIZE_KEY, "1KB");
      keys.set(OffloadConfigKeys.Scrub.INTERVAL_KEY, "1ms");
      keys.set(OffloadConfigKeys.Scrub.BANDWIDTH_KEY, "0");
      keys.set(OffloadConfigKeys.Upload.BANDWIDTH_KEY, "0");
      OffloadConfigKeys.Retention.setKeepLast(keys, 2);
      keys.set(OffloadConfigKeys.Retention.CHUNK_GRACE_KEY, "1min");
      return keys;
    }

    private void attach(boolean scheduled) {
      for (var server : cluster.servers()) {
        CollectorRegistry registry = new CollectorRegistry();
        SnapshotOffload.Builder builder = SnapshotOffload.builder(server.raftServer(), keys(scheduled))
            .store(store).registry(registry);
        offloads.put(server.id(), (scheduled ? builder : builder.withoutSchedule()).attach());
        registries.put(server.id(), registry);
      }
    }

    private void detach() {
      offloads.values().forEach(SnapshotOffload::close);
      offloads.clear();
      registries.clear();
    }

    @Override
    public void close() {
      detach();
    }

    void step(Action action) throws Exception {
      step++;
      done.add(action.toString());
      try {
        run(action);
        for (RaftGroupId group : cluster.groupIds()) {
          checkStore(group);
        }
        if (action instanceof Publish p) {
          freshnessIsWhatTheStoreHolds(group(p.group()));
        }
      } catch (AssertionError | Exception e) {
        throw new AssertionError("cluster " + clusterId + ", after steps " + done + ": " + e.getMessage(), e);
      }
    }

    private RaftGroupId group(int index) {
      return cluster.groupIds().get(index % GROUPS);
    }

    private void run(Action action) throws Exception {
      if (action instanceof Write w) {
        write(group(w.group()), w.start(), w.count());
      } else if (action instanceof Publish p) {
        publishPass(group(p.group()));
        passed(group(p.group()));
      } else if (action instanceof Scrub s) {
        scrub(group(s.group()));
      } else if (action instanceof DeleteChunk d) {
        damageChunk(group(d.group()), d.pick(), false);
      } else if (action instanceof FlipByte f) {
        damageChunk(group(f.group()), f.pick(), true);
      } else if (action instanceof DeleteManifest d) {
        deleteManifest(group(d.group()), d.pick());
      } else if (action instanceof Outage o) {
        outage(group(o.group()));
      } else if (action instanceof TransferLeader t) {
        transfer(group(t.group()), t.pick());
      } else if (action instanceof ConcurrentGc gc) {
        concurrentGc(gc.keepLast());
      }
    }

    // ---- the steps ----

    private void write(RaftGroupId group, int start, int count) throws IOException {
      SortedMap<String, String> values = new TreeMap<>();
      for (int i = 0; i < count; i++) {
        String key = String.format("key-%03d", (start + i) % KEYS);
        values.put(key, clusterId + "-step" + step + "-" + key);
      }
      RaftPeerId leader = cluster.leaderOf(group);
      try (KvClient client = cluster.client(group)) {
        List<CompletableFuture<Boolean>> puts = new ArrayList<>();
        values.forEach((k, v) -> puts.add(client.putAsync(k, v.getBytes(StandardCharsets.UTF_8))));
        CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IOException("writing to " + group + " failed: " + e, e);
      }
      state.get(group).putAll(values);
      snapshotEverywhere(group, leader);
    }

    private void publishPass(RaftGroupId group) {
      leaderFirst(group).forEach(o -> o.publishNow(group));
    }

    private void scheduledPass(RaftGroupId group) {
      leaderFirst(group).forEach(o -> ScheduledPasses.run(o, group));
    }

    /** The plugins, the group's leader's first, so the others' passes see what it stored. */
    private List<SnapshotOffload> leaderFirst(RaftGroupId group) {
      Optional<RaftPeerId> leader = cluster.currentLeader(group);
      List<SnapshotOffload> ordered = new ArrayList<>();
      leader.map(offloads::get).ifPresent(ordered::add);
      offloads.forEach((peer, offload) -> {
        if (!leader.equals(Optional.of(peer))) {
          ordered.add(offload);
        }
      });
      return ordered;
    }

    /** A pass ran after a scrub: the repair is done if the same peer still leads. */
    private void passed(RaftGroupId group) {
      if (repair.get(group) == Repair.SCRUBBED) {
        repair.put(group, cluster.leaderOf(group).equals(scrubbedBy.get(group)) ? Repair.NONE : Repair.PENDING);
      }
    }

    /**
     * After a pass on every peer, each reports the creation time of the newest generation the store
     * holds, or 0 when it holds none (a series a peer without a schedule never created counts as 0).
     */
    private void freshnessIsWhatTheStoreHolds(RaftGroupId group) {
      double expected = newest(group)
          .map(g -> reader.readManifest(g.id()).createdAt().toEpochMilli() / 1000.0).orElse(0.0);
      for (RaftPeerId peer : offloads.keySet()) {
        double reported = gauge(peer, "ratis_offload_newest_generation_timestamp_seconds", group);
        assertEquals(expected, Double.isNaN(reported) ? 0.0 : reported,
            "newest_generation_timestamp_seconds of " + uuid(group) + " on " + peer);
      }
    }

    private void scrub(RaftGroupId group) {
      cluster.leaderOf(group);
      publishPass(group); // heals what an earlier scrub found, so the scrub below sees the result
      Optional<StoredGeneration> newest = newest(group);
      if (newest.isEmpty()) {
        scheduledPass(group);
        scrubbed(group, cluster.leaderOf(group));
        return;
      }
      GenerationId id = newest.get().id();
      boolean expectDamaged = restored(group, newest.get()) == null;
      Instant start = Instant.now().truncatedTo(ChronoUnit.MILLIS);
      VerificationMark mark = Await.value("a scrub of " + id, WAIT, () -> {
        scheduledPass(group); // again only if leadership moved before the leader's pass
        return Optional.ofNullable(VerificationRecords.latest(store, clusterId, uuid(group)).get(id))
            .filter(m -> !m.verifiedAt().isBefore(start));
      });
      String verifiedBy = VerificationRecords.read(store, mark.key()).verifiedBy();
      RaftPeerId scrubber = RaftPeerId.valueOf(verifiedBy.substring(verifiedBy.lastIndexOf(' ') + 1));
      assertEquals(expectDamaged, !mark.ok(), "the scrub's record of " + id + " (" + mark.key()
          + ") against what reading it back found just before");
      if (expectDamaged) {
        assertTrue(gauge(scrubber, "ratis_offload_damaged_generations", group) >= 1,
            "damaged_generations on " + scrubber + " after its scrub found " + id + " damaged");
      }
      assertTrue(gauge(scrubber, "ratis_offload_last_verified_timestamp_seconds", group)
          >= start.getEpochSecond(), "last_verified on " + scrubber);
      scrubbed(group, scrubber);
    }

    private void scrubbed(RaftGroupId group, RaftPeerId peer) {
      if (repair.get(group) != Repair.NONE) {
        repair.put(group, Repair.SCRUBBED);
        scrubbedBy.put(group, peer);
      }
    }

    private void damageChunk(RaftGroupId group, int pick, boolean flip) throws IOException {
      List<StoredGeneration> generations = generations(group);
      if (generations.isEmpty()) {
        return;
      }
      Manifest manifest = reader.readManifest(generations.get(pick % generations.size()).id());
      List<String> chunks = manifest.files().stream().flatMap(f -> f.chunks().stream())
          .map(Manifest.ChunkRef::sha256).distinct().toList();
      String sha256 = chunks.get(pick / generations.size() % chunks.size());
      String key = Layout.chunkKey(clusterId, uuid(group), sha256);
      if (flip) {
        byte[] bytes;
        try (InputStream in = store.get(key)) {
          bytes = in.readAllBytes();
        } catch (ObjectNotFoundException e) {
          return; // already missing: nothing to flip
        }
        bytes[pick % bytes.length] ^= 0x40;
        store.delete(key);
        store.putIfAbsent(key, Content.of(bytes));
      } else {
        store.delete(key);
      }
      damaged.computeIfAbsent(uuid(group), g -> new HashMap<>()).put(sha256, new Damage(flip, step));
      repair.put(group, Repair.PENDING);
    }

    private void deleteManifest(RaftGroupId group, int pick) {
      List<StoredGeneration> generations = generations(group);
      if (generations.isEmpty()) {
        return;
      }
      GenerationId id = generations.get(pick % generations.size()).id();
      store.delete(id.manifestKey());
      firstSeen.remove(id);
      repair.put(group, Repair.PENDING);
    }

    private void outage(RaftGroupId group) throws IOException {
      s3.stop();
      try {
        publishPass(group);
        for (RaftPeerId peer : offloads.keySet()) {
          assertEquals(0.0, gauge(peer, "ratis_offload_store_up", null), "store_up on " + peer + " during the outage");
        }
      } finally {
        s3.restart();
      }
      publishPass(group);
      for (RaftPeerId peer : offloads.keySet()) {
        assertEquals(1.0, gauge(peer, "ratis_offload_store_up", null), "store_up on " + peer + " after the outage");
      }
    }

    private void transfer(RaftGroupId group, int pick) throws IOException {
      RaftPeerId leader = cluster.leaderOf(group);
      List<RaftPeerId> others = cluster.peerIds().stream().filter(p -> !p.equals(leader)).toList();
      cluster.transferLeadership(group, others.get(pick % others.size()));
      if (repair.get(group) == Repair.SCRUBBED) {
        repair.put(group, Repair.PENDING);
      }
    }

    private void concurrentGc(int keepLast) throws Exception {
      CompletableFuture<Cli.Result> gc = CompletableFuture.supplyAsync(() -> cli("gc",
          "--keep-last", Integer.toString(keepLast), "--chunk-grace", "1min", "--apply"));
      for (RaftGroupId group : cluster.groupIds()) {
        publishPass(group);
      }
      Cli.Result result = gc.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertEquals(0, result.code(), result.toString());
      cluster.groupIds().forEach(this::passed);
    }

    // ---- the checks ----

    /** After every step: see the class comment. */
    private void checkStore(RaftGroupId group) {
      List<StoredGeneration> generations = generations(group);
      int restorable = 0;
      for (StoredGeneration generation : generations) {
        firstSeen.putIfAbsent(generation.id(), step);
        everStored.add(group);
        if (restored(group, generation) != null) {
          restorable++;
        }
      }
      if (restorable == 0 && everStored.contains(group) && repair.get(group) == Repair.NONE) {
        fail("group " + uuid(group) + " has no generation that restores, and no fault is awaiting repair: "
            + generations.stream().map(g -> g.id().index()).toList());
      }
    }

    /**
     * Reads the generation back; null when it is damaged in a way the test caused, else the manifest
     * after checking the state it holds; fails on damage nobody caused or on a wrong state.
     */
    private Manifest restored(RaftGroupId group, StoredGeneration generation) {
      GenerationId id = generation.id();
      Manifest manifest = reader.readManifest(id);
      try {
        for (Manifest.FileEntry file : manifest.files()) {
          ByteArrayOutputStream bytes = new ByteArrayOutputStream();
          reader.readFile(manifest, file, bytes);
          SortedMap<String, String> decoded = new TreeMap<>();
          KvMap.read(new java.io.ByteArrayInputStream(bytes.toByteArray()))
              .forEach((k, v) -> decoded.put(k, new String(v, StandardCharsets.UTF_8)));
          SortedMap<String, String> expected = stateAt.get(group).get(id.index());
          if (expected == null) {
            fail("generation " + id + " is at an index no peer took a snapshot at in the model");
          }
          assertEquals(expected, decoded, "the state generation " + id + " holds");
        }
        return manifest;
      } catch (IntegrityException e) {
        Integer seen = firstSeen.getOrDefault(id, step);
        Map<String, Damage> ours = damaged.getOrDefault(uuid(group), Map.of());
        boolean explained = manifest.files().stream().flatMap(f -> f.chunks().stream()).anyMatch(c -> {
          Damage d = ours.get(c.sha256());
          return d != null && (d.flipped() || d.step() >= seen);
        });
        if (!explained) {
          fail("generation " + id + " (first seen after step " + seen + ") is damaged, and not by the test: "
              + e.getMessage());
        }
        return null;
      } catch (IOException e) {
        throw new AssertionError("cannot decode generation " + id + ": " + e.getMessage(), e);
      }
    }

    /** The faults stop; the plugins run on their schedule until every group's newest is verified. */
    void finalPhase() {
      step++;
      done.add("final phase");
      detach();
      Instant start = Instant.now().truncatedTo(ChronoUnit.MILLIS);
      attach(true);
      for (RaftGroupId group : cluster.groupIds()) {
        Await.until("cluster " + clusterId + ", after steps " + done + ": the newest generation of "
            + uuid(group) + " intact and verified ok since the faults stopped", WAIT, () -> {
              Optional<StoredGeneration> newest = newest(group);
              if (newest.isEmpty()) {
                return false;
              }
              VerificationMark mark = VerificationRecords.latest(store, clusterId, uuid(group)).get(newest.get().id());
              return mark != null && mark.ok() && !mark.verifiedAt().isBefore(start);
            });
        StoredGeneration newest = newest(group).orElseThrow();
        assertTrue(restored(group, newest) != null, "the newest generation of " + uuid(group) + " restores");
      }
      Cli.Result verify = cli("verify");
      assertEquals(0, verify.code(), "offload verify after the final phase: " + verify);
    }

    // ---- helpers ----

    /**
     * Runs {@code offload} in-process on the test's store (its S3 client is shared, as building one
     * per command would double a short try's time); the options still name that store.
     */
    private Cli.Result cli(String command, String... more) {
      List<String> args = new ArrayList<>(List.of(command, "--store", "s3://" + BUCKET, "--endpoint",
          s3.endpoint().toString(), "--path-style", "--region", EmbeddedS3.REGION, "--cluster", clusterId));
      args.addAll(List.of(more));
      return Cli.run(options -> new ForwardingObjectStore(store) {
        @Override
        public void close() {
          // the class closes the shared store
        }
      }, args.toArray(String[]::new));
    }

    private List<StoredGeneration> generations(RaftGroupId group) {
      return reader.list(Layout.manifestPrefix(clusterId, uuid(group)));
    }

    private Optional<StoredGeneration> newest(RaftGroupId group) {
      List<StoredGeneration> all = generations(group);
      return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
    }

    /** A gauge of a peer, by group ({@code null} for none); NaN when the series does not exist. */
    private double gauge(RaftPeerId peer, String name, RaftGroupId group) {
      Double value = group == null
          ? registries.get(peer).getSampleValue(name)
          : registries.get(peer).getSampleValue(name, new String[] {"group"}, new String[] {uuid(group)});
      return value == null ? Double.NaN : value;
    }
  }

  // ---- the cluster and the model -------------------------------------------------------------

  private static String uuid(RaftGroupId group) {
    return group.getUuid().toString();
  }

  private static RaftProperties storeKeys() {
    RaftProperties keys = new RaftProperties();
    OffloadConfigKeys.Store.setUri(keys, "s3://" + BUCKET);
    OffloadConfigKeys.S3.setEndpoint(keys, s3.endpoint().toString());
    OffloadConfigKeys.S3.setPathStyle(keys, true);
    OffloadConfigKeys.S3.setRegion(keys, EmbeddedS3.REGION);
    OffloadConfigKeys.Cluster.setId(keys, "campaign");
    return keys;
  }

  /**
   * Every peer snapshots the group once it has applied everything the leader had: with no write in
   * between, each snapshot holds the model's state, whatever index it lands at.
   */
  private static void snapshotEverywhere(RaftGroupId group, RaftPeerId leader) throws IOException {
    long applied = cluster.server(leader).division(group).getInfo().getLastAppliedIndex();
    try {
      List<CompletableFuture<Long>> snapshots = new ArrayList<>();
      for (RaftPeerId peer : cluster.peerIds()) {
        snapshots.add(CompletableFuture.supplyAsync(() -> snapshotOn(group, peer, applied)));
      }
      for (CompletableFuture<Long> snapshot : snapshots) {
        stateAt.get(group).put(snapshot.join(), new TreeMap<>(state.get(group)));
      }
    } catch (java.util.concurrent.CompletionException e) {
      throw new IOException(e.getCause().getMessage(), e.getCause());
    }
  }

  /** Once the peer has applied up to {@code applied}, has it take a snapshot; returns its index. */
  private static long snapshotOn(RaftGroupId group, RaftPeerId peer, long applied) {
    cluster.awaitApplied(peer, group, applied, WAIT);
    return cluster.snapshotOn(peer, group, WAIT);
  }

  /** After a try that stopped halfway: reads every key back, so the model is what the groups hold. */
  private static void resyncModel() throws IOException {
    for (RaftGroupId group : cluster.groupIds()) {
      List<String> keys = new ArrayList<>(state.get(group).keySet());
      state.put(group, cluster.readKeys(group, keys));
      snapshotEverywhere(group, cluster.leaderOf(group));
    }
  }

  @BeforeContainer
  static void start() throws IOException {
    root = Files.createTempDirectory("fault-campaign");
    s3 = EmbeddedS3.start(root.resolve("s3"));
    s3.createBucket(BUCKET);
    System.setProperty("aws.accessKeyId", s3.accessKey());
    System.setProperty("aws.secretAccessKey", s3.secretKey());
    store = ScheduledPasses.openStore(storeKeys());
    reader = new GenerationReader(store);
    cluster = RatisCluster.builder(root.resolve("ratis")).peers(3).groups(GROUPS).build().start();
    cluster.awaitLeaders(RatisCluster.DEFAULT_TIMEOUT);
    for (RaftGroupId group : cluster.groupIds()) {
      state.put(group, new TreeMap<>());
      stateAt.put(group, new ConcurrentHashMap<>());
      SortedMap<String, String> values = new TreeMap<>();
      try (KvClient client = cluster.client(group)) {
        for (int i = 0; i < KEYS; i++) {
          String key = String.format("key-%03d", i);
          client.put(key, "initial-" + key);
          values.put(key, "initial-" + key);
        }
      }
      state.get(group).putAll(values);
      snapshotEverywhere(group, cluster.leaderOf(group));
    }
  }

  @AfterContainer
  static void stop() throws IOException {
    try {
      if (cluster != null) {
        cluster.close();
      }
      if (store != null) {
        store.close();
      }
      if (s3 != null) {
        s3.close();
      }
    } finally {
      System.clearProperty("aws.accessKeyId");
      System.clearProperty("aws.secretAccessKey");
      TempDirs.delete(root);
    }
  }
}
