package dev.ratisoffload.plugin;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.publish.Fence;
import dev.ratisoffload.publish.GenerationPublisher;
import dev.ratisoffload.publish.PublishResult;
import dev.ratisoffload.publish.SkipReason;
import dev.ratisoffload.publish.SnapshotSource;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.Stores;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Snapshot offload for one Ratis server: publishes the latest snapshot of every group this peer leads
 * as a generation in the configured store.
 *
 * <pre>{@code
 * RaftProperties properties = ...;                 // the server's own properties
 * OffloadConfigKeys.Store.setUri(properties, "s3://backups/ratis");
 * OffloadConfigKeys.Cluster.setId(properties, "orders-prod");
 * RaftServer server = RaftServer.newBuilder().setProperties(properties)...build();
 * server.start();
 * try (SnapshotOffload offload = SnapshotOffload.attach(server, properties)) {
 *   offload.publishNow();                          // every group this peer leads
 * }
 * }</pre>
 */
public final class SnapshotOffload implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SnapshotOffload.class);

  private final RaftServer server;
  private final OffloadSettings settings;
  private final ObjectStore store;
  private final boolean ownsStore;
  private final GenerationPublisher publisher;
  private final ExecutorService uploads;
  private final Map<RaftGroupId, GroupState> groups = new ConcurrentHashMap<>();
  private volatile boolean closed;

  private SnapshotOffload(RaftServer server, OffloadSettings settings, ObjectStore store, boolean ownsStore,
      Clock clock) {
    this.server = server;
    this.settings = settings;
    this.store = store;
    this.ownsStore = ownsStore;
    this.uploads = Executors.newFixedThreadPool(settings.uploadParallelism(), daemonThreads());
    this.publisher = new GenerationPublisher(store, settings.chunking(), uploads,
        settings.uploadParallelism() * 2, clock);
  }

  /**
   * Validates the {@code offload.*} keys in {@code properties} and attaches offload to a running
   * server.
   *
   * @throws IllegalArgumentException naming the key and value of the first invalid setting
   */
  public static SnapshotOffload attach(RaftServer server, RaftProperties properties) {
    OffloadSettings settings = OffloadSettings.read(properties);
    return new SnapshotOffload(server, settings, Stores.open(settings.storeUri(), settings.s3()), true,
        Clock.systemUTC());
  }

  /**
   * Like {@link #attach(RaftServer, RaftProperties)} but publishing into a store the caller opened
   * (and closes); the {@code offload.store.uri} key is still validated. For embedding and tests.
   */
  public static SnapshotOffload attach(RaftServer server, RaftProperties properties, ObjectStore store) {
    return new SnapshotOffload(server, OffloadSettings.read(properties), store, false, Clock.systemUTC());
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
    if (!state.lock.tryLock()) {
      return new PublishResult.Skipped(SkipReason.IN_FLIGHT, "a publish of this group is running");
    }
    try {
      PublishResult result = publishLocked(groupId, state);
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
    SnapshotInfo snapshot = division.getStateMachine().getLatestSnapshot();
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
        Fence fence = () -> {
          if (closed) {
            return SkipReason.CLOSED;
          }
          DivisionInfo now = division.getInfo();
          return now.isLeader() && now.getCurrentTerm() == term ? null : SkipReason.LEADERSHIP_LOST;
        };
        PublishResult result = publisher.publish(source, fence);
        if (result instanceof PublishResult.Published) {
          state.published(snapshot.getIndex());
        }
        return result;
      }
    } catch (SnapshotPin.SnapshotGoneException e) {
      return new PublishResult.Skipped(SkipReason.SNAPSHOT_REPLACED, e.getMessage());
    } catch (IOException | RuntimeException e) {
      return new PublishResult.Failed(describe(groupId, snapshot) + " failed: " + e.getMessage(), e);
    }
  }

  private static List<Manifest.Peer> peersOf(RaftServer.Division division) {
    List<Manifest.Peer> peers = new ArrayList<>();
    for (RaftPeer peer : division.getRaftConf().getCurrentPeers()) {
      peers.add(new Manifest.Peer(peer.getId().toString(), peer.getAddress()));
    }
    return peers;
  }

  private static String describe(RaftGroupId groupId, SnapshotInfo snapshot) {
    return "publishing snapshot " + snapshot.getIndex() + " (term " + snapshot.getTerm() + ") of group "
        + groupId.getUuid();
  }

  private void log(RaftGroupId groupId, PublishResult result) {
    if (result instanceof PublishResult.Published p) {
      LOG.info("published group {} index {} term {} as {}: uploaded {} of {} bytes in {} ms",
          groupId.getUuid(), p.id().index(), p.id().term(), p.manifestKey(), p.uploadedBytes(),
          p.totalBytes(), p.duration().toMillis());
    } else if (result instanceof PublishResult.Failed f) {
      LOG.warn("{}; no generation was written, the next attempt retries", f.message());
    } else if (result instanceof PublishResult.Skipped s) {
      LOG.debug("skipped group {}: {} ({})", groupId.getUuid(), s.reason().label(), s.detail());
    }
  }

  /** Stops publishing; no manifest is written after this returns. */
  @Override
  public void close() {
    closed = true;
    // Each group's lock is held for the whole publish: taking it waits for one in flight, whose fence
    // now fails before its manifest.
    for (GroupState state : groups.values()) {
      state.lock.lock();
      state.lock.unlock();
    }
    uploads.shutdownNow();
    try {
      uploads.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (ownsStore) {
      store.close();
    }
  }

  private static java.util.concurrent.ThreadFactory daemonThreads() {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, "offload-upload-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
