package dev.ratisoffload.plugin;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.publish.Fence;
import dev.ratisoffload.publish.GenerationPublisher;
import dev.ratisoffload.publish.PublishResult;
import dev.ratisoffload.publish.SkipReason;
import dev.ratisoffload.publish.SnapshotSource;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreException;
import dev.ratisoffload.store.Stores;
import io.prometheus.client.CollectorRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.statemachine.SnapshotInfo;
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
  private static final long SNAPSHOT_REQUEST_TIMEOUT_MS = 60_000;

  private final RaftServer server;
  private final OffloadSettings settings;
  private final ObjectStore store;
  private final boolean ownsStore;
  private final GenerationPublisher publisher;
  private final ExecutorService uploads;
  private final ExecutorService workers;
  private final OffloadMetrics metrics;
  private final PublishScheduler scheduler;
  private final Map<RaftGroupId, GroupState> groups = new ConcurrentHashMap<>();
  /** Readers: manifest writes. Writer: close, so that no manifest is written after close returns. */
  private final ReadWriteLock manifestGate = new ReentrantReadWriteLock();
  private volatile boolean closed;

  private SnapshotOffload(Builder b, OffloadSettings settings) {
    this.server = b.server;
    this.settings = settings;
    this.ownsStore = b.store == null;
    this.store = ownsStore ? Stores.open(settings.storeUri(), settings.s3()) : b.store;
    this.uploads = Executors.newFixedThreadPool(settings.uploadParallelism(),
        PublishScheduler.daemon("offload-upload"));
    this.workers = Executors.newFixedThreadPool(settings.concurrency(),
        PublishScheduler.daemon("offload-publish"));
    this.publisher = new GenerationPublisher(store, settings.chunking(), uploads,
        settings.uploadParallelism() * 2, b.clock);
    this.metrics = new OffloadMetrics(b.registry);
    this.scheduler = b.scheduled
        ? new PublishScheduler(server::getGroupIds, this::publishNow, new PublishScheduler.GroupListener() {
          @Override
          public void added(RaftGroupId group) {
            metrics.addGroup(group.getUuid().toString());
          }

          @Override
          public void removed(RaftGroupId group) {
            groups.remove(group);
            metrics.removeGroup(group.getUuid().toString());
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

  /** Proves the store writable under its prefix with a probe object, written and removed. */
  private void preflight() {
    String probe = "ratis/probes/" + settings.clusterId() + "/" + server.getId() + "-" + System.nanoTime();
    try {
      store.putIfAbsent(probe, dev.ratisoffload.store.Content.of(new byte[] {1}));
      store.delete(probe);
      metrics.storeUp(true);
      LOG.info("offload attached: cluster {}, store {}, every {} (jitter {}), concurrency {}",
          settings.clusterId(), store.describe(), settings.interval(), settings.jitter(),
          settings.concurrency());
    } catch (StoreException e) {
      metrics.storeUp(false);
      String message = "offload cannot write to " + store.describe() + ": " + e.getMessage();
      if (settings.preflightRequired()) {
        throw new IllegalStateException(message + "; refusing to start because "
            + OffloadConfigKeys.Preflight.REQUIRED_KEY + " is true", e);
      }
      LOG.error("{}; publishing will retry on schedule (set {} = true to refuse to start instead)",
          message, OffloadConfigKeys.Preflight.REQUIRED_KEY);
    }
  }

  /** Publishes the latest snapshot of every group this server hosts; each result says what happened. */
  public Map<RaftGroupId, PublishResult> publishNow() {
    Map<RaftGroupId, PublishResult> results = new LinkedHashMap<>();
    for (RaftGroupId groupId : server.getGroupIds()) {
      results.put(groupId, publishNow(groupId));
    }
    return results;
  }

  /** Publishes the group's latest snapshot if this peer leads the group and it is not yet stored. */
  public PublishResult publishNow(RaftGroupId groupId) {
    if (closed) {
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
      PublishResult result = publishLocked(groupId, state);
      metrics.record(group, result);
      if (result instanceof PublishResult.Failed failed && failed.cause() instanceof StoreException) {
        metrics.storeUp(false);
      } else if (result instanceof PublishResult.Published) {
        metrics.storeUp(true);
      }
      log(groupId, result);
      return result;
    } finally {
      state.lock.unlock();
    }
  }

  private PublishResult publishLocked(RaftGroupId groupId, GroupState state) {
    RaftServer.Division division;
    try {
      division = server.getDivision(groupId);
    } catch (IOException e) {
      return new PublishResult.Skipped(SkipReason.NOT_LEADER, "group is not hosted here: " + e.getMessage());
    }
    DivisionInfo info = division.getInfo();
    if (!info.isLeader()) {
      return new PublishResult.Skipped(SkipReason.NOT_LEADER, "leader is " + info.getLeaderId());
    }
    if (!info.isLeaderReady()) {
      return new PublishResult.Skipped(SkipReason.LEADER_NOT_READY, "leader has not committed in its term");
    }
    long term = info.getCurrentTerm();
    SnapshotInfo snapshot = freshSnapshot(groupId, division);
    if (snapshot == null || snapshot.getFiles() == null || snapshot.getFiles().isEmpty()) {
      return new PublishResult.Skipped(SkipReason.NO_SNAPSHOT, "the state machine has no snapshot");
    }
    String group = groupId.getUuid().toString();
    try {
      long published = state.highWater(() -> new GenerationReader(store).newest(settings.clusterId(), group)
          .map(g -> g.id().index()).orElse(-1L));
      if (snapshot.getIndex() <= published) {
        return new PublishResult.Skipped(SkipReason.UNCHANGED,
            "snapshot " + snapshot.getIndex() + " is already published");
      }
      Path groupDir = division.getRaftStorage().getStorageDir().getRoot().toPath().toAbsolutePath().normalize();
      Path spool = settings.spoolDir() == null
          ? groupDir.resolve("offload-spool")
          : settings.spoolDir().toPath().resolve(group);
      SnapshotPin.clear(spool);
      try (SnapshotPin pin = SnapshotPin.pin(snapshot, groupDir, spool)) {
        SnapshotSource source = new SnapshotSource(settings.clusterId(), group, snapshot.getTerm(),
            snapshot.getIndex(), peersOf(division), new Manifest.Publisher(server.getId().toString(), term),
            pin.files());
        PublishResult result = publisher.publish(source, new LeaderFence(division, term));
        if (result instanceof PublishResult.Published) {
          state.published(snapshot.getIndex());
        }
        return result;
      }
    } catch (SnapshotPin.SnapshotGoneException e) {
      return new PublishResult.Skipped(SkipReason.SNAPSHOT_REPLACED, e.getMessage());
    } catch (IOException | RuntimeException e) {
      return new PublishResult.Failed("publishing snapshot " + snapshot.getIndex() + " (term "
          + snapshot.getTerm() + ") of group " + group + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * The latest snapshot, after asking Ratis for a new one when {@code offload.snapshot.trigger-gap}
   * entries or more were applied since it.
   */
  private SnapshotInfo freshSnapshot(RaftGroupId groupId, RaftServer.Division division) {
    SnapshotInfo latest = division.getStateMachine().getLatestSnapshot();
    long gap = settings.snapshotTriggerGap();
    long snapshotIndex = latest == null ? -1 : latest.getIndex();
    if (gap > 0 && division.getInfo().getLastAppliedIndex() - snapshotIndex >= gap) {
      try {
        server.snapshotManagement(org.apache.ratis.protocol.SnapshotManagementRequest.newCreate(
            org.apache.ratis.protocol.ClientId.randomId(), server.getId(), groupId, 0,
            SNAPSHOT_REQUEST_TIMEOUT_MS, gap));
        return division.getStateMachine().getLatestSnapshot();
      } catch (IOException | RuntimeException e) {
        LOG.warn("group {}: could not ask Ratis for a new snapshot ({}); publishing the latest one",
            groupId.getUuid(), e.toString());
      }
    }
    return latest;
  }

  /** Stops a publish whose peer is no longer leader in its term, or when offload closes. */
  private final class LeaderFence implements Fence {
    private final RaftServer.Division division;
    private final long term;

    LeaderFence(RaftServer.Division division, long term) {
      this.division = division;
      this.term = term;
    }

    @Override
    public SkipReason check() {
      if (closed) {
        return SkipReason.CLOSED;
      }
      DivisionInfo now = division.getInfo();
      return now.isLeader() && now.getCurrentTerm() == term ? null : SkipReason.LEADERSHIP_LOST;
    }

    @Override
    public <T> T exclusive(Supplier<T> checkAndWrite) {
      manifestGate.readLock().lock();
      try {
        return checkAndWrite.get();
      } finally {
        manifestGate.readLock().unlock();
      }
    }
  }

  private static List<Manifest.Peer> peersOf(RaftServer.Division division) {
    List<Manifest.Peer> peers = new ArrayList<>();
    for (RaftPeer peer : division.getRaftConf().getCurrentPeers()) {
      peers.add(new Manifest.Peer(peer.getId().toString(), peer.getAddress()));
    }
    return peers;
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
   * manifest, and no manifest is written after this returns. Waits at most 30 s for passes to end.
   */
  @Override
  public void close() {
    closed = true;
    if (scheduler != null) {
      scheduler.close();
    }
    // Wait for a manifest being written; every later fence check sees `closed`.
    manifestGate.writeLock().lock();
    manifestGate.writeLock().unlock();
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
    uploads.shutdownNow();
    metrics.unregister();
    if (ownsStore) {
      store.close();
    }
  }
}
