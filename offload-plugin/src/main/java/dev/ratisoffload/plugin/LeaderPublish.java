package dev.ratisoffload.plugin;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.publish.Fence;
import dev.ratisoffload.publish.GenerationPublisher;
import dev.ratisoffload.publish.PublishResult;
import dev.ratisoffload.publish.SkipReason;
import dev.ratisoffload.publish.SnapshotSource;
import dev.ratisoffload.store.ObjectStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.SnapshotManagementRequest;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One publish of one group from a Ratis server: checks that the peer leads the group, takes (or asks
 * Ratis for) its latest snapshot, skips it if already stored, pins its files and hands them to the
 * {@link GenerationPublisher} under a fence that fails when leadership or the term changes, or when
 * offload shuts down.
 */
final class LeaderPublish {

  private static final Logger LOG = LoggerFactory.getLogger(LeaderPublish.class);
  private static final long SNAPSHOT_REQUEST_TIMEOUT_MS = 60_000;

  private final RaftServer server;
  private final OffloadSettings settings;
  private final ObjectStore store;
  private final GenerationPublisher publisher;
  private final ShutdownGate shutdown;

  LeaderPublish(RaftServer server, OffloadSettings settings, ObjectStore store, GenerationPublisher publisher,
      ShutdownGate shutdown) {
    this.server = server;
    this.settings = settings;
    this.store = store;
    this.publisher = publisher;
    this.shutdown = shutdown;
  }

  /** Publishes the group's latest snapshot if this peer leads it; the caller holds the group's lock. */
  PublishResult publish(RaftGroupId groupId, GroupState state) {
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
      if (snapshot.getIndex() <= published && !state.mustHeal(snapshot.getIndex())) {
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

  /** Whether this peer is the group's leader now. */
  boolean leads(RaftGroupId groupId) {
    try {
      return server.getDivision(groupId).getInfo().isLeader();
    } catch (IOException e) {
      return false;
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
        server.snapshotManagement(SnapshotManagementRequest.newCreate(ClientId.randomId(), server.getId(), groupId, 0,
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
      if (shutdown.isClosed()) {
        return SkipReason.CLOSED;
      }
      DivisionInfo now = division.getInfo();
      return now.isLeader() && now.getCurrentTerm() == term ? null : SkipReason.LEADERSHIP_LOST;
    }

    @Override
    public <T> T exclusive(Supplier<T> checkAndWrite) {
      return shutdown.whileOpen(checkAndWrite);
    }
  }

  /** The whole current configuration, voting peers and listeners, with every field Ratis keeps. */
  private static List<Manifest.Peer> peersOf(RaftServer.Division division) {
    List<Manifest.Peer> peers = new ArrayList<>();
    for (Manifest.Role role : Manifest.Role.values()) {
      for (RaftPeer peer : division.getRaftConf().getCurrentPeers(RaftPeerRole.valueOf(role.name()))) {
        peers.add(new Manifest.Peer(peer.getId().toString(), peer.getAddress(),
            absentIfEmpty(peer.getClientAddress()), absentIfEmpty(peer.getAdminAddress()),
            absentIfEmpty(peer.getDataStreamAddress()), peer.getPriority(), role));
      }
    }
    return peers;
  }

  /** Ratis reads an unset address from its configuration as "". */
  private static String absentIfEmpty(String address) {
    return address == null || address.isEmpty() ? null : address;
  }

}
