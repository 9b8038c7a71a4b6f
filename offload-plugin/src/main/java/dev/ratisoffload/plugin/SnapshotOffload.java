package dev.ratisoffload.plugin;

import dev.ratisoffload.activity.GroupActivity;
import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.Layout.VerificationMark;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.VerificationRecord;
import dev.ratisoffload.format.VerificationRecords;
import dev.ratisoffload.primitives.DaemonThreads;
import dev.ratisoffload.publish.BandwidthBudget;
import dev.ratisoffload.publish.GenerationPublisher;
import dev.ratisoffload.publish.PublishResult;
import dev.ratisoffload.publish.SkipReason;
import dev.ratisoffload.retention.GarbageCollector;
import dev.ratisoffload.scrub.Scrubber;
import dev.ratisoffload.store.ConformanceProperty;
import dev.ratisoffload.store.ConformanceReport;
import dev.ratisoffload.store.ConformanceResult;
import dev.ratisoffload.store.ObjectConflictException;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreAccessException;
import dev.ratisoffload.store.StoreException;
import dev.ratisoffload.store.StoreConformance;
import dev.ratisoffload.store.StoreUnavailableException;
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
  /** Runs scrubs one at a time, beside the publish workers, so a long scrub holds no group's lock. */
  private final ExecutorService scrubs = Executors.newSingleThreadExecutor(DaemonThreads.named("offload-scrub"));
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
    this.store = ownsStore ? settings.store().open() : b.store;
    this.uploads = Executors.newFixedThreadPool(settings.uploadParallelism(),
        DaemonThreads.named("offload-upload"));
    this.workers = Executors.newFixedThreadPool(settings.concurrency(),
        DaemonThreads.named("offload-publish"));
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
            String uuid = group.getUuid().toString();
            if (metricGroups.add(uuid)) {
              metrics.addGroup(uuid);
            }
            // Freshness from the store at once, not only after the first pass (up to the jitter away).
            GroupState state = groups.computeIfAbsent(group, id -> new GroupState());
            workers.execute(() -> observe(uuid, state));
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
   * Runs the start-up part of {@link StoreConformance} under {@code ratis/probes/}: the store is up when
   * it takes a write, conformant when it has every property publishing relies on. Removing the probes
   * needs the delete permission, which only retention needs: without it they stay, with a warning.
   */
  private void preflight() {
    String probes = "ratis/probes/" + settings.clusterId() + "/" + safePeerId(server) + "-";
    ConformanceReport report;
    try {
      report = StoreConformance.check(store, StoreConformance.STARTUP, probes);
      metrics.storeUp(true);
    } catch (StoreException e) {
      metrics.storeUp(false);
      metrics.storeConformant(false);
      String message = "offload cannot write to " + store.describe() + ": " + e.getMessage();
      if (settings.preflightRequired()) {
        throw new IllegalStateException(message + "; refusing to start because "
            + OffloadConfigKeys.Preflight.REQUIRED_KEY + " is true", e);
      }
      LOG.error("{}; publishing will retry on schedule (set {} = true to refuse to start instead)",
          message, OffloadConfigKeys.Preflight.REQUIRED_KEY);
      return;
    }
    metrics.storeConformant(report.conformant());
    report.firstFailure().ifPresent(failure -> {
      String message = "offload's start-up check found that " + store.describe() + " lacks "
          + failure.property().id() + " (" + failure.detail() + "): " + failure.property().failureMeans();
      if (settings.preflightRequired()) {
        throw new IllegalStateException(message + "; refusing to start because "
            + OffloadConfigKeys.Preflight.REQUIRED_KEY + " is true. Use a store that has it (offload store check"
            + " checks every property; docs/design.md, \"Store compatibility\")");
      }
      LOG.error("{}; publishing continues (set {} = true to refuse to start instead; offload store check"
          + " checks every property)", message, OffloadConfigKeys.Preflight.REQUIRED_KEY);
    });
    LOG.info("offload attached: cluster {}, store {}, every {} (jitter {}), concurrency {}, bandwidth {},"
            + " retention: {}", settings.clusterId(), store.describe(), settings.interval(), settings.jitter(),
        settings.concurrency(), budget,
        settings.retention().isEnabled() ? settings.retention() : "keep everything");
    if (settings.retention().isEnabled()) {
      store.deletionWarning().ifPresent(LOG::warn);
    }
    report.results().stream()
        .filter(r -> r.property() == ConformanceProperty.DELETE && r.verdict() != ConformanceResult.Verdict.PASS)
        .forEach(r -> LOG.warn("offload wrote its start-up probes under {} but cannot delete them ({}): publishes"
            + " are written, but each leaves its intent under ratis/activity/ (chunk collection then waits for it),"
            + " a scrub cannot move damaged chunks aside, and retention ({}) cannot delete; {}. Grant"
            + " s3:DeleteObject as runbook/README.md lists", probes, r.detail(), OffloadConfigKeys.PREFIX
            + ".retention.*", report.leftBehind().orElse("the probes were removed")));
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

  /** Waits until the scrubs started so far have ended (they run one at a time on a thread of their own). */
  void awaitScrubs() throws Exception {
    scrubs.submit(() -> { }).get(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
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
      if (result instanceof PublishResult.Failed failed && failed.cause() instanceof ObjectConflictException
          && state.healing() >= 0) {
        LOG.error("cannot heal generation {} of group {} from this peer: its snapshot at that index is not the one"
            + " stored (another chunk size, or another leader's snapshot); the damage stays reported until a newer"
            + " generation is published and verified", state.healing(), group);
        state.cannotHeal(state.healing());
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
   * none depends on which peer leads or on when it started. Null when the store could not be listed.
   */
  private GroupView observe(String group, GroupState state) {
    GenerationReader reader = new GenerationReader(store);
    GroupView view;
    try {
      view = new GroupView(reader.list(Layout.manifestPrefix(settings.clusterId(), group)),
          VerificationRecords.latest(store, settings.clusterId(), group));
    } catch (StoreException e) {
      metrics.storeUp(!unreachable(e));
      LOG.warn("group {}: cannot list its generations in the store ({}); its gauges keep their last values",
          group, e.getMessage());
      return null;
    }
    metrics.storeUp(true);
    metrics.verifications(group, view.lastVerifiedAt(), view.damaged());
    Optional<GenerationReader.StoredGeneration> newest = view.newest();
    state.stored(newest.map(g -> g.id().index()).orElse(-1L),
        newest.map(g -> view.damaged(g.id())).orElse(false));
    try {
      metrics.newestGeneration(group, newest.map(g -> state.createdAt(g.manifestObject(),
          () -> reader.readManifest(g.id()).createdAt())).orElse(null));
    } catch (StoreException e) {
      LOG.warn("group {}: cannot read its newest generation's manifest ({}); its freshness gauge keeps its last"
          + " value, and the next scrub records the damage", group, e.getMessage());
    }
    return view;
  }

  /**
   * On the group's leader, starts a scrub on the scrub thread (never under the group's lock, so a long
   * scrub does not hold its publishes off): of the newest generation when the group's latest
   * verification is older than {@code offload.scrub.interval} (or a publish just healed it), else of an
   * older generation found damaged before the newest was published (chunks it shares with the newest
   * may have been stored again since).
   */
  private void scrubIfDue(RaftGroupId groupId, String group, GroupState state, GroupView view) {
    boolean healed = state.takeScrubNow();
    if (view == null || scrubber == null || view.newest().isEmpty() || !leaderPublish.leads(groupId)) {
      return;
    }
    Instant last = view.lastVerifiedWhileNewest();
    boolean due = healed || last == null || !last.plus(settings.scrubInterval()).isAfter(clock.instant());
    Optional<GenerationId> target = due ? view.newest().map(GenerationReader.StoredGeneration::id)
        : view.damagedBefore(state.newestCreatedAt());
    if (target.isEmpty() || !state.scrubbing.compareAndSet(false, true)) {
      return;
    }
    try {
      scrubs.execute(() -> {
        try {
          scrub(group, state, target.get());
        } finally {
          state.scrubbing.set(false);
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      state.scrubbing.set(false);
    }
  }

  private void scrub(String group, GroupState state, GenerationId generation) {
    try {
      Optional<VerificationRecord> record = scrubber.scrub(generation, verifiedBy, true);
      if (record.isEmpty()) {
        return; // removed by retention meanwhile
      }
      metrics.scrubbed(group, record.get());
      if (record.get().ok()) {
        LOG.info("scrubbed generation {} of group {}: every chunk intact", generation.index(), group);
      } else {
        LOG.error("scrub of generation {} (term {}) of group {} found damage: {}{}; the damaged chunks were moved"
                + " aside, and the group's leader publishes it again to store them anew",
            generation.index(), generation.term(), group, record.get().damaged(),
            record.get().note() == null ? "" : " (" + record.get().note() + ")");
      }
      observe(group, state);
    } catch (StoreException e) {
      LOG.warn("scrub of group {} stopped: {}; no verification was recorded, the next pass retries", group,
          e.getMessage());
      if (e instanceof StoreUnavailableException) {
        metrics.storeUp(false);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The group as one listing found it in the store. */
  record GroupView(List<GenerationReader.StoredGeneration> generations,
      Map<GenerationId, VerificationMark> verified) {

    Optional<GenerationReader.StoredGeneration> newest() {
      return generations.isEmpty() ? Optional.empty() : Optional.of(generations.get(generations.size() - 1));
    }

    /** The newest verification of a generation still stored; null if none. */
    Instant lastVerifiedAt() {
      return generations.stream().map(g -> verified.get(g.id())).filter(java.util.Objects::nonNull)
          .map(VerificationMark::verifiedAt).max(Instant::compareTo).orElse(null);
    }

    /**
     * The latest verification of a generation that was the group's newest when it was verified: what makes
     * a scrub due, so that `offload verify --all --record` of older generations does not postpone it.
     */
    Instant lastVerifiedWhileNewest() {
      Instant last = null;
      for (int i = 0; i < generations.size(); i++) {
        VerificationMark mark = verified.get(generations.get(i).id());
        boolean wasNewest = mark != null && generations.subList(i + 1, generations.size()).stream()
            .allMatch(later -> later.manifestObject().lastModified().isAfter(mark.verifiedAt()));
        if (wasNewest && (last == null || mark.verifiedAt().isAfter(last))) {
          last = mark.verifiedAt();
        }
      }
      return last;
    }

    boolean damaged(GenerationId id) {
      VerificationMark mark = verified.get(id);
      return mark != null && !mark.ok();
    }

    int damaged() {
      return (int) generations.stream().filter(g -> damaged(g.id())).count();
    }

    /** An older generation whose latest verification found damage before {@code newestCreated}. */
    Optional<GenerationId> damagedBefore(Instant newestCreated) {
      if (newestCreated == null) {
        return Optional.empty();
      }
      return generations.stream().limit(generations.size() - 1L).map(GenerationReader.StoredGeneration::id)
          .filter(id -> damaged(id) && verified.get(id).verifiedAt().isBefore(newestCreated)).findFirst();
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
   * manifest (its queued uploads store nothing), and no manifest is written after this returns; a scrub
   * in progress is interrupted. Waits at most 30 s for passes, and the uploads already running, to end.
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
    scrubs.shutdownNow(); // a scrub in progress stops at its next read and records nothing
    try {
      scrubs.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    metricGroups.forEach(metrics::removeGroup);
    metrics.release();
    if (ownsStore) {
      store.close();
    }
  }
}
