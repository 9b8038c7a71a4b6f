package dev.ratisoffload.testkit;

import dev.ratisoffload.refkv.KvClient;
import dev.ratisoffload.refkv.KvServer;
import dev.ratisoffload.refkv.KvStateMachine;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage.StartupOption;
import org.apache.ratis.statemachine.StateMachine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several {@link KvServer}s on 127.0.0.1, every one hosting every group: the Ratis cluster that
 * integration tests and the demo run against.
 *
 * <p>Each peer keeps its storage in its own directory ({@code <root>/<peer id>} by default), so a
 * test can stop the cluster, inspect or replace group directories
 * ({@link #groupDir(RaftPeerId, RaftGroupId)}) and start it again with {@code RECOVER}, on the
 * same ports or, through {@link Builder#existingStorage}, as a new cluster on new ports.
 */
public final class RatisCluster implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RatisCluster.class);

  /**
   * How long the convenience methods wait for Raft (a leader, a transfer, a snapshot): seconds are
   * usual, but a 2-CPU machine busy with other work can stretch an election far past that.
   */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(2);

  /** The longest one request that Raft may refuse (a transfer, a snapshot) blocks before it is retried. */
  private static final Duration ATTEMPT = Duration.ofSeconds(20);

  /** Attaches something (for example the offload plugin) to a started server; closed before the server stops. */
  @FunctionalInterface
  public interface Attachment {
    AutoCloseable attach(KvServer server) throws Exception;
  }

  private final List<RaftPeer> peers;
  private final List<RaftGroup> groups;
  private final Map<RaftPeerId, Path> storageDirs;
  private final StateMachine.Registry stateMachines;
  private final Function<RaftPeerId, RaftProperties> properties;
  private final Attachment attachment;
  private final StartupOption firstStartOption;
  private final Map<RaftPeerId, KvServer> running = new ConcurrentHashMap<>();
  private final Map<RaftPeerId, AutoCloseable> attached = new ConcurrentHashMap<>();
  private boolean started;

  private RatisCluster(Builder b, List<RaftPeer> peers, List<RaftGroup> groups, Map<RaftPeerId, Path> dirs) {
    this.peers = List.copyOf(peers);
    this.groups = List.copyOf(groups);
    this.storageDirs = Collections.unmodifiableMap(new LinkedHashMap<>(dirs));
    this.stateMachines = b.stateMachines;
    this.properties = b.properties;
    this.attachment = b.attachment;
    this.firstStartOption = b.existing ? StartupOption.RECOVER : StartupOption.FORMAT;
  }

  /** A new cluster whose peers keep their storage under {@code rootDir}. */
  public static Builder builder(Path rootDir) {
    return new Builder(rootDir);
  }

  /** The directory name Ratis gives a group: its full lowercase UUID. */
  public static String groupDirName(RaftGroupId groupId) {
    return KvServer.groupDirName(groupId);
  }

  // ---- lifecycle --------------------------------------------------------------------------

  /** Starts every peer: FORMAT for a new cluster, RECOVER for one built on existing storage. */
  public synchronized RatisCluster start() throws IOException {
    if (started) {
      throw new IllegalStateException("already started; use restartAll or startPeer");
    }
    started = true;
    for (RaftPeer peer : peers) {
      startPeer(peer.getId(), firstStartOption);
    }
    return this;
  }

  /** Starts one (stopped) peer with RECOVER on its port and storage dir. */
  public KvServer startPeer(RaftPeerId id) throws IOException {
    return startPeer(id, StartupOption.RECOVER);
  }

  public synchronized KvServer startPeer(RaftPeerId id, StartupOption option) throws IOException {
    if (running.containsKey(id)) {
      throw new IllegalStateException(id + " is already running");
    }
    final KvServer server = KvServer.newBuilder()
        .setId(id)
        .setPort(port(id))
        .setStorageDir(storageDir(id))
        .setGroups(groupsOf(id))
        .setStateMachineRegistry(stateMachines)
        .setStartupOption(option)
        .setProperties(tolerantOfPauses(properties.apply(id)))
        .build();
    server.start();
    running.put(id, server);
    if (attachment != null) {
      try {
        attached.put(id, attachment.attach(server));
      } catch (Exception e) {
        stopPeer(id);
        throw new IOException("attaching to " + id + " failed: " + e.getMessage(), e);
      }
    }
    LOG.info("started {} on {} ({})", id, server.address(), option);
    return server;
  }

  /**
   * The caller's properties, plus election timeouts (unless set) that ride out the pauses of a busy
   * 2-CPU machine: garbage collection and a starved CPU stall a peer for 0.3-0.8 s, which with shorter
   * timeouts costs the leader its leadership mid-test. The first election after a start stays quick.
   */
  private static RaftProperties tolerantOfPauses(RaftProperties callers) {
    final RaftProperties p = new RaftProperties(callers);
    p.setIfUnset(RaftServerConfigKeys.Rpc.TIMEOUT_MIN_KEY, "1500ms");
    p.setIfUnset(RaftServerConfigKeys.Rpc.TIMEOUT_MAX_KEY, "3000ms");
    p.setIfUnset(RaftServerConfigKeys.Rpc.FIRST_ELECTION_TIMEOUT_MIN_KEY, "500ms");
    p.setIfUnset(RaftServerConfigKeys.Rpc.FIRST_ELECTION_TIMEOUT_MAX_KEY, "1000ms");
    return p;
  }

  /** Stops one peer (its attachment first); its storage stays. */
  public void stopPeer(RaftPeerId id) throws IOException {
    final AutoCloseable attachmentHandle = attached.remove(id);
    if (attachmentHandle != null) {
      try {
        attachmentHandle.close();
      } catch (Exception e) {
        LOG.warn("closing the attachment of {} failed", id, e);
      }
    }
    final KvServer server = running.remove(id);
    if (server != null) {
      server.close();
      LOG.info("stopped {}", id);
    }
  }

  /** Stops every running peer, in parallel (closing one Ratis server takes about a second). */
  public void stopAll() throws IOException {
    final List<CompletableFuture<Void>> stops = new ArrayList<>();
    for (RaftPeerId id : List.copyOf(running.keySet())) {
      stops.add(CompletableFuture.runAsync(() -> {
        try {
          stopPeer(id);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }));
    }
    try {
      CompletableFuture.allOf(stops.toArray(new CompletableFuture[0])).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while stopping the cluster", e);
    } catch (ExecutionException e) {
      throw new IOException("stopping the cluster failed: " + e.getCause().getMessage(), e.getCause());
    }
  }

  /** Stops every peer and starts them all again on the same ports and storage dirs. */
  public synchronized void restartAll(StartupOption option) throws IOException {
    stopAll();
    started = true;
    for (RaftPeer peer : peers) {
      startPeer(peer.getId(), option);
    }
  }

  @Override
  public void close() throws IOException {
    stopAll();
  }

  // ---- topology ---------------------------------------------------------------------------

  /** The groups whose members include the peer (every group, unless built with {@code groupMembers}). */
  public List<RaftGroup> groupsOf(RaftPeerId id) {
    return groups.stream().filter(g -> g.getPeer(id) != null).toList();
  }

  public List<RaftPeer> peers() {
    return peers;
  }

  public List<RaftPeerId> peerIds() {
    return peers.stream().map(RaftPeer::getId).toList();
  }

  public List<RaftGroup> groups() {
    return groups;
  }

  public List<RaftGroupId> groupIds() {
    return groups.stream().map(RaftGroup::getGroupId).toList();
  }

  public RaftGroup group(RaftGroupId groupId) {
    return groups.stream().filter(g -> g.getGroupId().equals(groupId)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no group " + groupId + " in this cluster"));
  }

  /** The running servers. */
  public List<KvServer> servers() {
    return peerIds().stream().map(running::get).filter(Objects::nonNull).toList();
  }

  /** The running server of a peer. */
  public KvServer server(RaftPeerId id) {
    final KvServer server = running.get(id);
    if (server == null) {
      throw new IllegalStateException(id + " is not running");
    }
    return server;
  }

  public boolean isRunning(RaftPeerId id) {
    return running.containsKey(id);
  }

  public int port(RaftPeerId id) {
    final String address = peer(id).getAddress();
    return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
  }

  /** Peer id to port, e.g. to start another cluster on this one's ports. */
  public Map<RaftPeerId, Integer> ports() {
    final Map<RaftPeerId, Integer> ports = new LinkedHashMap<>();
    peers.forEach(p -> ports.put(p.getId(), port(p.getId())));
    return ports;
  }

  public Path storageDir(RaftPeerId id) {
    return Objects.requireNonNull(storageDirs.get(id), () -> "no peer " + id);
  }

  /** Peer id to storage dir, e.g. to start another cluster on this one's storage. */
  public Map<RaftPeerId, Path> storageDirs() {
    return storageDirs;
  }

  /** {@code <storage dir of the peer>/<group UUID>}. */
  public Path groupDir(RaftPeerId peerId, RaftGroupId groupId) {
    return storageDir(peerId).resolve(groupDirName(groupId));
  }

  private RaftPeer peer(RaftPeerId id) {
    return peers.stream().filter(p -> p.getId().equals(id)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no peer " + id + " in this cluster"));
  }

  // ---- leaders ----------------------------------------------------------------------------

  /**
   * The running peer that leads the group and is ready to serve, if any; of two that both think so
   * (an old leader that has not yet heard of the new term), the one in the newer term.
   */
  public Optional<RaftPeerId> currentLeader(RaftGroupId groupId) {
    return servers().stream().filter(s -> s.isReadyLeader(groupId))
        .max(Comparator.comparingLong(s -> termOf(s, groupId))).map(KvServer::id);
  }

  private static long termOf(KvServer server, RaftGroupId groupId) {
    try {
      return server.division(groupId).getInfo().getCurrentTerm();
    } catch (IOException e) {
      return -1;
    }
  }

  /** Waits for a ready leader of the group. */
  public RaftPeerId awaitLeader(RaftGroupId groupId, Duration timeout) {
    return Await.value("a ready leader of " + groupId, timeout, () -> currentLeader(groupId));
  }

  /** Waits for a ready leader of every group (sharing one deadline). */
  public Map<RaftGroupId, RaftPeerId> awaitLeaders(Duration timeout) {
    final long deadline = System.nanoTime() + timeout.toNanos();
    final Map<RaftGroupId, RaftPeerId> leaders = new LinkedHashMap<>();
    for (RaftGroupId groupId : groupIds()) {
      final Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
      leaders.put(groupId, awaitLeader(groupId, left));
    }
    return leaders;
  }

  /** The group's leader, waiting up to {@link #DEFAULT_TIMEOUT} for one. */
  public RaftPeerId leaderOf(RaftGroupId groupId) {
    return awaitLeader(groupId, DEFAULT_TIMEOUT);
  }

  /** {@link #transferLeadership(RaftGroupId, RaftPeerId, Duration)} within {@link #DEFAULT_TIMEOUT}. */
  public void transferLeadership(RaftGroupId groupId, RaftPeerId newLeader) {
    transferLeadership(groupId, newLeader, DEFAULT_TIMEOUT);
  }

  /**
   * Moves the group's leadership to {@code newLeader} and returns once it leads and is ready. Raft may
   * refuse or lose a transfer (the old leader answers DIFFERENT_LEADER before it hears who won, another
   * peer's election wins, the target is not up to date in time), so each refusal is retried, against
   * whichever peer leads then, until the target leads or the deadline passes.
   */
  public void transferLeadership(RaftGroupId groupId, RaftPeerId newLeader, Duration timeout) {
    if (group(groupId).getPeer(newLeader) == null) {
      throw new IllegalArgumentException(newLeader + " is not a member of " + groupId + ", so it cannot lead it");
    }
    Await.retrying(newLeader + " to lead " + groupId + " and be ready (a leadership transfer)", timeout, left -> {
      final Optional<RaftPeerId> leader = currentLeader(groupId);
      if (leader.isEmpty()) {
        return Optional.empty(); // an election, perhaps the transfer's, is running
      }
      if (leader.get().equals(newLeader)) {
        return leader;
      }
      try (KvClient admin = adminClient(groupId, leader.get())) {
        admin.transferLeadership(newLeader, oneAttempt(left));
      } catch (IOException e) {
        LOG.info("transferring {} from {} to {} was refused, will retry: {}",
            groupId, leader.get(), newLeader, e.toString());
        throw e;
      }
      return Optional.empty(); // the next poll sees whether it leads and is ready
    });
  }

  /**
   * A client that asks {@code peer} once and leaves retrying to the caller's deadline: the default
   * client would retry a timed-out request many times over, far past any deadline.
   */
  private KvClient adminClient(RaftGroupId groupId, RaftPeerId peer) {
    return new KvClient(group(groupId), peer, new RaftProperties(), RetryPolicies.noRetry());
  }

  /** How long one request that Raft may refuse may block: at most what is left, at most {@link #ATTEMPT}. */
  private static Duration oneAttempt(Duration left) {
    return left.compareTo(ATTEMPT) < 0 ? Duration.ofMillis(Math.max(1, left.toMillis())) : ATTEMPT;
  }

  /** Waits until the peer has applied the group's log up to {@code index}. */
  public void awaitApplied(RaftPeerId peer, RaftGroupId groupId, long index, Duration timeout) {
    Await.retrying(peer + " to apply " + groupId + " up to index " + index, timeout,
        left -> Optional.of(server(peer).division(groupId).getInfo().getLastAppliedIndex()).filter(i -> i >= index));
  }

  // ---- data -------------------------------------------------------------------------------

  /** A new client of the group, aimed at its current leader if there is one; the caller closes it. */
  public KvClient client(RaftGroupId groupId) {
    return new KvClient(group(groupId), currentLeader(groupId).orElse(null));
  }

  /**
   * Writes {@code count} keys {@code <prefix>000000 ...} with values {@code <key>=value} (pipelined,
   * so thousands take seconds) and returns what was written, in key order.
   */
  public SortedMap<String, String> writeKeys(RaftGroupId groupId, int count, String prefix) throws IOException {
    leaderOf(groupId); // so the client starts at the leader instead of being redirected per request
    final SortedMap<String, String> written = new TreeMap<>();
    try (KvClient client = client(groupId)) {
      final List<CompletableFuture<Boolean>> inFlight = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        final String key = String.format("%s%06d", prefix, i);
        final String value = key + "=value";
        written.put(key, value);
        inFlight.add(client.putAsync(key, value.getBytes(StandardCharsets.UTF_8)));
        if (inFlight.size() == 256 || i == count - 1) {
          join(inFlight);
          inFlight.clear();
        }
      }
    }
    return written;
  }

  /** Reads keys linearizably; absent keys are left out of the result. */
  public SortedMap<String, String> readKeys(RaftGroupId groupId, Collection<String> keys) throws IOException {
    final SortedMap<String, String> found = new TreeMap<>();
    try (KvClient client = client(groupId)) {
      for (String key : keys) {
        client.getString(key).ifPresent(v -> found.put(key, v));
      }
    }
    return found;
  }

  /**
   * Makes the group's leader take a snapshot now and returns its log index; a request refused or
   * timed out (leadership moved, a busy machine) is retried on whichever peer leads then.
   */
  public long snapshot(RaftGroupId groupId) {
    return Await.retrying("a snapshot of " + groupId + " on its ready leader", DEFAULT_TIMEOUT, left -> {
      final Optional<RaftPeerId> leader = currentLeader(groupId);
      return leader.isEmpty() ? Optional.empty() : Optional.of(takeSnapshot(groupId, leader.get(), left));
    });
  }

  /** Makes one peer, leader or follower, take a snapshot of the group now; returns its log index. */
  public long snapshotOn(RaftPeerId peer, RaftGroupId groupId, Duration timeout) {
    return Await.retrying("a snapshot of " + groupId + " on " + peer, timeout,
        left -> Optional.of(takeSnapshot(groupId, peer, left)));
  }

  private long takeSnapshot(RaftGroupId groupId, RaftPeerId peer, Duration left) throws IOException {
    try (KvClient admin = adminClient(groupId, peer)) {
      return admin.takeSnapshot(peer, oneAttempt(left));
    }
  }

  private static void join(List<CompletableFuture<Boolean>> futures) throws IOException {
    try {
      CompletableFuture.allOf(futures.toArray(new CompletableFuture[0])).get(DEFAULT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while writing", e);
    } catch (ExecutionException e) {
      throw new IOException("write failed: " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IOException("writes not acknowledged within " + DEFAULT_TIMEOUT, e);
    }
  }

  /** Configures a cluster; see {@link RatisCluster#builder(Path)}. */
  public static final class Builder {
    private final Path rootDir;
    private int peerCount = 3;
    private List<RaftPeerId> peerIds;
    private int groupCount = 1;
    private List<RaftGroupId> groupIds;
    private Map<RaftGroupId, Function<List<RaftPeer>, List<RaftPeer>>> members;
    private StateMachine.Registry stateMachines = groupId -> new KvStateMachine();
    private Function<RaftPeerId, RaftProperties> properties = id -> new RaftProperties();
    private Attachment attachment;
    private Map<RaftPeerId, Path> existingDirs;
    private Map<RaftPeerId, Integer> ports;
    private boolean existing;

    private Builder(Path rootDir) {
      this.rootDir = rootDir.toAbsolutePath();
    }

    /** Number of peers (default 3), named p0, p1, ... */
    public Builder peers(int count) {
      if (count < 1) {
        throw new IllegalArgumentException("peers must be at least 1, got " + count);
      }
      this.peerCount = count;
      this.peerIds = null;
      return this;
    }

    /** These peer ids instead of p0, p1, ... (as many peers as ids), e.g. the ones a runbook names. */
    public Builder peerIds(List<RaftPeerId> ids) {
      if (ids.isEmpty()) {
        throw new IllegalArgumentException("peerIds must name at least one peer");
      }
      this.peerIds = List.copyOf(ids);
      return this;
    }

    /** Number of groups (default 1), each with a random id. */
    public Builder groups(int count) {
      if (count < 1) {
        throw new IllegalArgumentException("groups must be at least 1, got " + count);
      }
      this.groupCount = count;
      this.groupIds = null;
      return this;
    }

    /** Use these group ids (so a state machine registry can tell them apart). */
    public Builder groupIds(List<RaftGroupId> ids) {
      this.groupIds = List.copyOf(ids);
      this.members = null;
      return this;
    }

    /**
     * A multi-Raft layout: these groups, each on the members its function picks from the cluster's peers
     * (and shapes, e.g. with {@code RaftPeer.newBuilder(peer).setPriority(2)} or a LISTENER start-up role).
     * A peer starts only the groups it is a member of.
     */
    public Builder groupMembers(Map<RaftGroupId, Function<List<RaftPeer>, List<RaftPeer>>> members) {
      this.members = new LinkedHashMap<>(members);
      this.groupIds = List.copyOf(members.keySet());
      return this;
    }

    /** The state machine for each group (default: a {@link KvStateMachine} per group). */
    public Builder stateMachines(StateMachine.Registry registry) {
      this.stateMachines = Objects.requireNonNull(registry);
      return this;
    }

    /** Extra properties for each peer's server, e.g. the offload plugin's keys. */
    public Builder properties(Function<RaftPeerId, RaftProperties> perPeer) {
      this.properties = Objects.requireNonNull(perPeer);
      return this;
    }

    /** Called after every start of every server; what it returns is closed before that server stops. */
    public Builder attach(Attachment attachment) {
      this.attachment = attachment;
      return this;
    }

    /** Ports per peer (default: free ports). Needed to restart storage whose raft-meta.conf names old ports. */
    public Builder ports(Map<RaftPeerId, Integer> ports) {
      this.ports = new LinkedHashMap<>(ports);
      return this;
    }

    /**
     * Build on existing (for example restored) storage: every subdirectory of the root dir is a
     * peer's storage dir named after the peer, and its group directories give the groups. The
     * first start uses RECOVER.
     */
    public Builder existingStorage() {
      final File[] dirs = rootDir.toFile().listFiles(File::isDirectory);
      if (dirs == null || dirs.length == 0) {
        throw new IllegalStateException("no peer storage directories under " + rootDir);
      }
      final Map<RaftPeerId, Path> map = new LinkedHashMap<>();
      Arrays.stream(dirs).sorted(Comparator.comparing(File::getName))
          .forEach(d -> map.put(RaftPeerId.valueOf(d.getName()), d.toPath()));
      return existingStorage(map);
    }

    /** Build on existing storage dirs given per peer; the first start uses RECOVER. */
    public Builder existingStorage(Map<RaftPeerId, Path> storageDirs) {
      this.existingDirs = new LinkedHashMap<>(storageDirs);
      this.existing = true;
      return this;
    }

    public RatisCluster build() {
      final List<RaftPeerId> ids = new ArrayList<>();
      final Map<RaftPeerId, Path> dirs = new LinkedHashMap<>();
      if (existing) {
        ids.addAll(existingDirs.keySet());
        dirs.putAll(existingDirs);
      } else {
        for (int i = 0; i < (peerIds != null ? peerIds.size() : peerCount); i++) {
          final RaftPeerId id = peerIds != null ? peerIds.get(i) : RaftPeerId.valueOf("p" + i);
          ids.add(id);
          dirs.put(id, rootDir.resolve(id.toString()));
        }
      }
      final List<Integer> freePorts = FreePorts.distinct(ids.size());
      final List<RaftPeer> peerList = new ArrayList<>();
      for (int i = 0; i < ids.size(); i++) {
        final RaftPeerId id = ids.get(i);
        final int port = ports != null && ports.containsKey(id) ? ports.get(id) : freePorts.get(i);
        peerList.add(RaftPeer.newBuilder().setId(id).setAddress(KvServer.LOOPBACK + ":" + port).build());
      }
      final List<RaftGroupId> gids = groupIds != null ? groupIds
          : existing ? discoverGroups(dirs.values()) : randomGroupIds(groupCount);
      final List<RaftGroup> groupList = gids.stream()
          .map(g -> RaftGroup.valueOf(g, membersOf(g, peerList, dirs))).toList();
      return new RatisCluster(this, peerList, groupList, dirs);
    }

    /**
     * A group's members: as {@code groupMembers} picks them; on discovered storage, the peers whose
     * storage dir holds the group's directory; otherwise every peer.
     */
    private List<RaftPeer> membersOf(RaftGroupId group, List<RaftPeer> all, Map<RaftPeerId, Path> dirs) {
      if (members != null) {
        return members.get(group).apply(all);
      }
      if (existing && groupIds == null) {
        return all.stream().filter(p -> dirs.get(p.getId()).resolve(groupDirName(group)).toFile().isDirectory())
            .toList();
      }
      return all;
    }

    private static List<RaftGroupId> randomGroupIds(int count) {
      final List<RaftGroupId> ids = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        ids.add(RaftGroupId.randomId());
      }
      return ids;
    }

    /** Group ids from the UUID-named directories found in any peer's storage dir. */
    private static List<RaftGroupId> discoverGroups(Collection<Path> storageDirs) {
      final TreeSet<String> names = new TreeSet<>();
      for (Path dir : storageDirs) {
        final File[] children = dir.toFile().listFiles(File::isDirectory);
        if (children != null) {
          for (File child : children) {
            if (isUuid(child.getName())) {
              names.add(child.getName());
            }
          }
        }
      }
      if (names.isEmpty()) {
        throw new IllegalStateException("no group directories in " + storageDirs);
      }
      return names.stream().map(n -> RaftGroupId.valueOf(UUID.fromString(n))).toList();
    }

    private static boolean isUuid(String name) {
      try {
        return UUID.fromString(name).toString().equals(name);
      } catch (IllegalArgumentException e) {
        return false;
      }
    }
  }
}
