package dev.ratisoffload.plugin;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.Layout.VerificationMark;
import dev.ratisoffload.format.VerificationRecord;
import dev.ratisoffload.format.VerificationRecords;
import dev.ratisoffload.publish.BandwidthBudget;
import dev.ratisoffload.publish.GenerationPublisher;
import dev.ratisoffload.publish.PublishResult;
import dev.ratisoffload.publish.SkipReason;
import dev.ratisoffload.retention.GarbageCollector;
import dev.ratisoffload.retention.GroupActivity;
import dev.ratisoffload.scrub.Scrubber;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreAccessException;
import dev.ratisoffload.store.StoreException;
import dev.ratisoffload.store.StoreUnavailableException;
import dev.ratisoffload.store.Stores;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Snapshot offload for one Ratis server: on a schedule, publishes the latest snapshot of every group
 * this peer leads as a generation in the configured store, and exports Prometheus metrics.
 *
 * <pre>{@code
 * RaftProperties properties = ...;                 // the server's own properties
 * OffloadConfigKeys.Store.setUri(properties, "s3://backups/ratis");
 * OffloadConfigKeys.Cluster.setId(properties, "orders-prod");
 * RaftServer server = RaftServer.newBuilder().setProperties(properties)...build();
 * server.start();
 * SnapshotOffload offload = SnapshotOffload.attach(server, properties);
 * ...
 * offload.close();                                 // before the server closes
 * }</pre>
 */
public final class SnapshotOffload implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotOffload.class);
  private static final long CLOSE_WAIT_SECONDS = 30;

  private final RaftServer server;
  private final OffloadSettings settings;
  private final ObjectStore store;
  private final boolean ownsStore;
  private final LeaderPublish leaderPublish;
  private final ExecutorService uploads;
  private final ExecutorService workers;
  /** One for the peer: every group publishing here at once shares it. */
  private final BandwidthBudget budget;
  /** Null when {@code offload.scrub.interval} is 0. */
  private final Scrubber scrubber;
  private final String verifiedBy;
  /** When a scrub is due, against the verification records' times. */
  private final Clock clock;
  private final OffloadMetrics metrics;
  private final PublishScheduler scheduler;
  private final Map<RaftGroupId, GroupState> groups = new ConcurrentHashMap<>();
  /** The groups whose series this server created (the registry may be shared with other servers). */
  private final Set<String> metricGroups = ConcurrentHashMap.newKeySet();
  private final ShutdownGate shutdown = new ShutdownGate();

  private SnapshotOffload(Builder b, OffloadSettings settings) {
    this.server = b.server;
    this.settings = settings;
    this.ownsStore = b.store == null;
    this.store = ownsStore ? Stores.open(settings.storeUri(), settings.s3()) : b.store;
    this.uploads = Executors.newFixedThreadPool(settings.uploadParallelism(),
        PublishScheduler.daemon("offload-upload"));
    this.workers = Executors.newFixedThreadPool(settings.concurrency(),
        PublishScheduler.daemon("offload-publish"));
    this.budget = BandwidthBudget.forReading(settings.uploadBandwidth());
    this.scrubber = settings.scrubInterval().isZero() ? null
        : new Scrubber(store, b.clock, BandwidthBudget.forReading(settings.scrubBandwidth())::acquire);
    this.verifiedBy = "offload plugin on peer " + safePeerId(b.server);
    this.clock = b.clock;
    this.leaderPublish = new LeaderPublish(server, settings, store, new GenerationPublisher(store,
        settings.chunking(), uploads, settings.uploadParallelism() * 2, b.clock, budget,
        new GroupActivity(store, settings.retention().chunkGrace())), shutdown);
    this.metrics = OffloadMetrics.acquire(b.registry);
    this.scheduler = b.scheduled
        ? new PublishScheduler(server::getGroupIds, this::passNow, new PublishScheduler.GroupListener() {
          @Override
          public void added(RaftGroupId group) {
            if (metricGroups.add(group.getUuid().toString())) {
              metrics.addGroup(group.getUuid().toString());
            }
          }

          @Override
          public void removed(RaftGroupId group) {
            groups.remove(group);
            if (metricGroups.remove(group.getUuid().toString())) {
              metrics.removeGroup(group.getUuid().toString());
            }
          }
        }, settings.interval(), settings.jitter(), workers)
        : null;
  }

  /**
   * Validates the {@code offload.*} keys in {@code properties}, checks the store, and starts publishing
   * on schedule, with metrics in Prometheus's default registry.
   *
   * @throws IllegalArgumentException naming the key and value of the first invalid setting
   * @throws IllegalStateException when {@code offload.preflight.required} is true and the store cannot
   *     be written
   */
  public static SnapshotOffload attach(RaftServer server, RaftProperties properties) {
    return builder(server, properties).attach();
  }

  /** Like {@link #attach(RaftServer, RaftProperties)}, with metrics in the given registry. */
  public static SnapshotOffload attach(RaftServer server, RaftProperties properties,
      CollectorRegistry registry) {
    return builder(server, properties).registry(registry).attach();
  }

  /** For hosts that need more control: a store they opened, no schedule, a clock. */
  public static Builder builder(RaftServer server, RaftProperties properties) {
    return new Builder(server, properties);
  }

  /** Options of {@link #attach}; the configuration keys remain the source of every setting. */
  public static final class Builder {
    private final RaftServer server;
    private final RaftProperties properties;
    private CollectorRegistry registry = CollectorRegistry.defaultRegistry;
    private ObjectStore store;
    private boolean scheduled = true;
    private Clock clock = Clock.systemUTC();

    private Builder(RaftServer server, RaftProperties properties) {
      this.server = server;
      this.properties = properties;
    }

    public Builder registry(CollectorRegistry value) {
      registry = value;
      return this;
    }

    /** Publish into this store (which the caller closes) instead of opening {@code offload.store.uri}. */
    public Builder store(ObjectStore value) {
      store = value;
      return this;
    }

    /** Without a schedule, only {@link SnapshotOffload#publishNow} publishes. */
    public Builder withoutSchedule() {
      scheduled = false;
      return this;
    }

    public Builder clock(Clock value) {
      clock = value;
      return this;
    }

    public SnapshotOffload attach() {
      SnapshotOffload offload = new SnapshotOffload(this, OffloadSettings.read(properties));
      try {
        offload.preflight();
      } catch (RuntimeException e) {
        offload.close();
        throw e;
      }
      if (offload.scheduler != null) {
        offload.scheduler.start();
      }
      return offload;
    }
  }

  /**
   * Proves the store writable under its prefix with a probe object. Removing the probe needs the delete
   * permission, which only retention needs: without it the probe stays, with a warning, and the store
   * still counts as up.
   */
  private void preflight() {
    String probe = "ratis/probes/" + settings.clusterId() + "/" + safePeerId(server) + "-" + System.nanoTime();
    try {
      store.putIfAbsent(probe, dev.ratisoffload.store.Content.of(new byte[] {1}));
      metrics.storeUp(true);
      LOG.info("offload attached: cluster {}, store {}, every {} (jitter {}), concurrency {}, bandwidth {},"
              + " retention: {}", settings.clusterId(), store.describe(), settings.interval(), settings.jitter(),
          settings.concurrency(), budget,
          settings.retention().isEnabled() ? settings.retention() : "keep everything");
      if (settings.retention().isEnabled()) {
        store.deletionWarning().ifPresent(LOG::warn);
      }
    } catch (StoreException e) {
      metrics.storeUp(false);
      String message = "offload cannot write to " + store.describe() + ": " + e.getMessage();
      if (settings.preflightRequired()) {
        throw new IllegalStateException(message + "; refusing to start because "
            + OffloadConfigKeys.Preflight.REQUIRED_KEY + " is true", e);
      }
      LOG.error("{}; publishing will retry on schedule (set {} = true to refuse to start instead)",
          message, OffloadConfigKeys.Preflight.REQUIRED_KEY);
      return;
    }
    try {
      store.delete(probe);
    } catch (StoreException e) {
      LOG.warn("offload wrote its start-up probe {} but cannot delete it ({}): publishing works;"
          + " retention ({}) needs the delete permission, and the probe object stays", probe, e.getMessage(),
          OffloadConfigKeys.PREFIX + ".retention.*");
    }
  }

  /** The peer's id as a key segment (and printable text). */
  private static String safePeerId(RaftServer server) {
    return server.getId().toString().replaceAll("[^A-Za-z0-9_=-]", "_");
  }

  /** The peer's publish bandwidth budget ({@code offload.upload.bandwidth}). */
  BandwidthBudget bandwidthBudget() {
    return budget;
  }

  /** Publishes the latest snapshot of every group this server hosts; each result says what happened. */
  public Map<RaftGroupId, PublishResult> publishNow() {
    Map<RaftGroupId, PublishResult> results = new LinkedHashMap<>();
    for (RaftGroupId groupId : server.getGroupIds()) {
      results.put(groupId, publishNow(groupId));
    }
    return results;
  }

  /**
   * Publishes the group's latest snapshot if this peer leads the group and it is not yet stored, then
   * reads the group's state in the store for the metrics. Scrubbing runs in scheduled passes only.
   */
  public PublishResult publishNow(RaftGroupId groupId) {
    return pass(groupId, false);
  }

  /** A scheduled pass: {@link #publishNow}, then, on the leader, a scrub of the group when one is due. */
  PublishResult passNow(RaftGroupId groupId) {
    return pass(groupId, true);
  }

  private PublishResult pass(RaftGroupId groupId, boolean scrub) {
    if (shutdown.isClosed()) {
      return new PublishResult.Skipped(SkipReason.CLOSED, "offload is closed");
    }
    GroupState state = groups.computeIfAbsent(groupId, id -> new GroupState());
    String group = groupId.getUuid().toString();
    if (!state.lock.tryLock()) {
      PublishResult busy = new PublishResult.Skipped(SkipReason.IN_FLIGHT, "a publish of this group is running");
      metrics.record(group, busy);
      return busy;
    }
    try {
      PublishResult result = leaderPublish.publish(groupId, state);
      metrics.record(group, result);
      if (result instanceof PublishResult.Published && settings.retention().isEnabled()) {
        collectGarbage(group);
      }
      log(groupId, result);
      if (result instanceof PublishResult.Failed failed && unreachable(failed.cause())) {
        metrics.storeUp(false);
        return result;
      }
      GroupView view = observe(group, state);
      if (scrub) {
        scrubIfDue(groupId, group, state, view);
      }
      return result;
    } finally {
      state.lock.unlock();
    }
  }


  /**
   * The pass's probe of the store, on every peer, leader or not: one listing of the group's manifests
   * and one of its verification records (and a read of the newest manifest when it changed) set
   * {@code store_up}, the group's freshness and its verification gauges from what the store holds, so
   * none depends on which peer leads or on when it started. Null when the store could not be read.
   */
  private GroupView observe(String group, GroupState state) {
    GenerationReader reader = new GenerationReader(store);
    try {
      List<GenerationReader.StoredGeneration> generations =
          reader.list(Layout.manifestPrefix(settings.clusterId(), group));
      Map<GenerationId, VerificationMark> verified = VerificationRecords.latest(store, settings.clusterId(), group);
      metrics.storeUp(true);
      GroupView view = new GroupView(generations.stream().map(GenerationReader.StoredGeneration::id).toList(), verified);
      metrics.verifications(group, view.lastVerifiedAt(), view.damaged());
      state.stored(view.newest().map(GenerationId::index).orElse(-1L));
      metrics.newestGeneration(group, view.newest()
          .map(id -> state.createdAt(id, () -> reader.readManifest(id).createdAt())).orElse(null));
      return view;
    } catch (StoreException e) {
      if (unreachable(e)) {
        metrics.storeUp(false);
      } else {
        LOG.warn("group {}: cannot read its newest generation's manifest ({}); its freshness gauge keeps"
            + " its last value; run `offload verify` for the group", group, e.getMessage());
      }
      return null;
    }
  }

  /**
   * On the group's leader, verifies the group's newest generation when the group's latest verification
   * is older than {@code offload.scrub.interval} (or a publish just healed it); damage makes the next
   * pass publish the generation again, so the chunks moved aside are stored again.
   */
  private void scrubIfDue(RaftGroupId groupId, String group, GroupState state, GroupView view) {
    boolean healed = state.takeScrubNow();
    if (view == null || scrubber == null || view.newest().isEmpty() || !leaderPublish.leads(groupId)) {
      return;
    }
    Instant last = view.lastVerifiedAt();
    if (!healed && last != null && last.plus(settings.scrubInterval()).isAfter(clock.instant())) {
      return;
    }
    GenerationId newest = view.newest().get();
    try {
      Optional<VerificationRecord> record = scrubber.scrub(newest, verifiedBy, true);
      if (record.isEmpty()) {
        return; // removed by retention meanwhile
      }
      metrics.scrubbed(group, record.get());
      if (record.get().ok()) {
        LOG.info("scrubbed generation {} of group {}: every chunk intact", newest.index(), group);
      } else {
        state.heal(newest.index());
        LOG.error("scrub of generation {} (term {}) of group {} found damage: {}{}; the damaged chunks were moved"
                + " aside and the next pass publishes the group again to store them anew",
            newest.index(), newest.term(), group, record.get().damaged(),
            record.get().note() == null ? "" : " (" + record.get().note() + ")");
      }
      observe(group, state);
    } catch (StoreException e) {
      LOG.warn("scrub of group {} stopped: {}; no verification was recorded, the next pass retries", group,
          e.getMessage());
      if (unreachable(e)) {
        metrics.storeUp(false);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The group as one pass found it in the store. */
  private record GroupView(List<GenerationId> generations, Map<GenerationId, VerificationMark> verified) {

    Optional<GenerationId> newest() {
      return generations.isEmpty() ? Optional.empty() : Optional.of(generations.get(generations.size() - 1));
    }

    /** The newest verification of a generation still stored; null if none. */
    Instant lastVerifiedAt() {
      return generations.stream().map(verified::get).filter(java.util.Objects::nonNull)
          .map(VerificationMark::verifiedAt).max(Instant::compareTo).orElse(null);
    }

    int damaged() {
      return (int) generations.stream().map(verified::get)
          .filter(mark -> mark != null && !mark.ok()).count();
    }
  }

  private static boolean unreachable(Throwable error) {
    return error instanceof StoreUnavailableException || error instanceof StoreAccessException;
  }

  /** Applies the retention policy to a group this peer just published, still holding its lock. */
  private void collectGarbage(String group) {
    GarbageCollector.GcReport report =
        new GarbageCollector(store).collect(settings.clusterId(), group, settings.retention(), true);
    metrics.recordGc(group, report);
    if (report.failure() != null) {
      LOG.warn("garbage collection of group {} stopped after deleting {} manifests and {} chunks: {}",
          group, report.expiredManifests().size(), report.deletedChunks(), report.failure().getMessage());
    } else if (!report.expiredManifests().isEmpty() || report.deletedChunks() > 0) {
      LOG.info("garbage collection of group {}: deleted {} manifests and {} chunks ({} bytes), kept {} generations",
          group, report.expiredManifests().size(), report.deletedChunks(), report.deletedChunkBytes(),
          report.kept().size());
    }
    report.chunksKept().ifPresent(why -> LOG.info("garbage collection of group {}: chunks kept: {}", group, why));
  }

  private void log(RaftGroupId groupId, PublishResult result) {
    if (result instanceof PublishResult.Published p) {
      LOG.info("published group {} index {} term {} as {}: uploaded {} of {} bytes in {} ms",
          groupId.getUuid(), p.id().index(), p.id().term(), p.manifestKey(), p.uploadedBytes(),
          p.totalBytes(), p.duration().toMillis());
    } else if (result instanceof PublishResult.Failed f) {
      LOG.warn("{}; no generation was written, the next pass retries", f.message());
    } else if (result instanceof PublishResult.Skipped s) {
      LOG.debug("skipped group {}: {} ({})", groupId.getUuid(), s.reason().label(), s.detail());
    }
  }

  /**
   * Stops publishing: no new pass starts, a publish in flight stops at its next chunk or before its
   * manifest (its queued uploads store nothing), and no manifest is written after this returns. Waits
   * at most 30 s for passes, and the uploads already running, to end.
   */
  @Override
  public void close() {
    shutdown.close(); // waits for a manifest being written; every later fence check fails
    if (scheduler != null) {
      scheduler.close();
    }
    workers.shutdown();
    try {
      if (!workers.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
        LOG.warn("a publish did not stop within {} s; abandoning it (it can write no manifest)",
            CLOSE_WAIT_SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    workers.shutdownNow();
    GenerationPublisher.stopUploads(uploads);
    metricGroups.forEach(metrics::removeGroup);
    metrics.release();
    if (ownsStore) {
      store.close();
    }
  }
}
