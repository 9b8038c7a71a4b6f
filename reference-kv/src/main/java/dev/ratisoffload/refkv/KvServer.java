package dev.ratisoffload.refkv;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.GroupManagementRequest;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage.StartupOption;
import org.apache.ratis.statemachine.StateMachine;

/**
 * One Ratis server (one peer) of the key-value store, hosting several Raft groups, bound to
 * 127.0.0.1 on one gRPC port.
 *
 * <p>Start-up options:
 * <ul>
 *   <li>{@code FORMAT}: every group is new; its directory must not exist yet.</li>
 *   <li>{@code RECOVER}: every group must already have its directory under the storage dir (a
 *   restart, or a restored directory). Ratis then takes each group's membership from that
 *   directory ({@code current/raft-meta.conf} and the log), not from the {@link RaftGroup}s given
 *   here.</li>
 * </ul>
 * Ratis also recovers any other group directory it finds under the storage dir.
 *
 * <p>The caller's {@link RaftProperties} are copied and passed to the server, so a plugin attached
 * to it can read its own keys from {@link #properties()}.
 */
public final class KvServer implements Closeable {
  public static final String LOOPBACK = "127.0.0.1";

  private static final AtomicLong CALL_IDS = new AtomicLong();

  private final RaftPeerId id;
  private final int port;
  private final Path storageDir;
  private final List<RaftGroup> groups;
  private final StateMachine.Registry stateMachines;
  private final StartupOption startupOption;
  private final RaftProperties properties;
  private volatile RaftServer server;

  private KvServer(Builder b) {
    this.id = Objects.requireNonNull(b.id, "peer id");
    this.port = b.port;
    this.storageDir = Objects.requireNonNull(b.storageDir, "storage dir").toAbsolutePath();
    this.groups = List.copyOf(b.groups);
    this.stateMachines = b.stateMachines;
    this.startupOption = b.startupOption;
    this.properties = serverProperties(b.properties, storageDir, port);
    if (port <= 0) {
      throw new IllegalArgumentException("a fixed port is needed (peers find each other by it), got " + port);
    }
    for (RaftGroup group : groups) {
      if (group.getPeer(id) == null) {
        throw new IllegalArgumentException("peer " + id + " is not a member of " + group);
      }
    }
  }

  public static Builder newBuilder() {
    return new Builder();
  }

  /**
   * The server's properties: the caller's, plus defaults the caller did not set (no automatic
   * snapshots, keep 2 snapshots, linearizable reads, election timeouts that tolerate a busy
   * 2-core machine), plus the storage dir and loopback address, which are always ours.
   */
  static RaftProperties serverProperties(RaftProperties extra, Path storageDir, int port) {
    final RaftProperties p = extra == null ? new RaftProperties() : new RaftProperties(extra);
    p.setIfUnset(RaftServerConfigKeys.Snapshot.AUTO_TRIGGER_ENABLED_KEY, "false");
    p.setIfUnset(RaftServerConfigKeys.Snapshot.RETENTION_FILE_NUM_KEY, "2");
    p.setIfUnset(RaftServerConfigKeys.Read.OPTION_KEY, RaftServerConfigKeys.Read.Option.LINEARIZABLE.name());
    p.setIfUnset(RaftServerConfigKeys.Rpc.TIMEOUT_MIN_KEY, "500ms");
    p.setIfUnset(RaftServerConfigKeys.Rpc.TIMEOUT_MAX_KEY, "1000ms");
    RaftServerConfigKeys.setStorageDir(p, List.of(storageDir.toFile()));
    GrpcConfigKeys.Server.setHost(p, LOOPBACK);
    GrpcConfigKeys.Server.setPort(p, port);
    GrpcConfigKeys.Client.setHost(p, LOOPBACK);
    GrpcConfigKeys.Admin.setHost(p, LOOPBACK);
    return p;
  }

  /** The directory name Ratis uses for a group: the full lowercase UUID (not {@code RaftGroupId.toString()}). */
  public static String groupDirName(RaftGroupId groupId) {
    return groupId.getUuid().toString();
  }

  /** Builds and starts the Ratis server, then adds the groups (FORMAT) or checks they were recovered. */
  public synchronized KvServer start() throws IOException {
    if (server != null) {
      throw new IllegalStateException(id + " was already started; build a new KvServer to restart");
    }
    checkGroupDirectories();
    Files.createDirectories(storageDir);
    final RaftServer s = RaftServer.newBuilder()
        .setServerId(id)
        .setStateMachineRegistry(stateMachines)
        .setProperties(properties)
        .setOption(startupOption)
        .build(); // recovers every group directory found under storageDir
    server = s;
    try {
      s.start();
      if (startupOption == StartupOption.FORMAT) {
        for (RaftGroup group : groups) {
          addGroup(s, group);
        }
      }
      for (RaftGroup group : groups) {
        if (!hosts(s, group.getGroupId())) {
          throw new IOException(id + " did not start group " + group.getGroupId() + " from "
              + groupDir(group.getGroupId()));
        }
      }
    } catch (IOException | RuntimeException e) {
      try {
        s.close(); // release the port and threads: a half-started server helps nobody
      } catch (IOException | RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    return this;
  }

  private void checkGroupDirectories() throws IOException {
    for (RaftGroup group : groups) {
      final Path dir = groupDir(group.getGroupId());
      final boolean exists = Files.exists(dir);
      if (startupOption == StartupOption.FORMAT && exists) {
        throw new IOException(id + ": " + dir + " already exists; start with RECOVER to keep it,"
            + " or delete it to start the group afresh");
      }
      if (startupOption == StartupOption.RECOVER && !exists) {
        throw new IOException(id + ": RECOVER needs " + dir + " but it does not exist; restore it,"
            + " or start with FORMAT to create an empty group");
      }
    }
  }

  private void addGroup(RaftServer s, RaftGroup group) throws IOException {
    final RaftClientReply reply = s.groupManagement(GroupManagementRequest.newAdd(
        ClientId.randomId(), id, CALL_IDS.incrementAndGet(), group, true));
    if (!reply.isSuccess()) {
      throw new IOException(id + ": failed to add " + group, reply.getException());
    }
  }

  public RaftPeerId id() {
    return id;
  }

  public int port() {
    return port;
  }

  /** {@code 127.0.0.1:<port>}, the address other peers and clients use. */
  public String address() {
    return LOOPBACK + ":" + port;
  }

  public Path storageDir() {
    return storageDir;
  }

  /** {@code <storageDir>/<group UUID>}. */
  public Path groupDir(RaftGroupId groupId) {
    return storageDir.resolve(groupDirName(groupId));
  }

  public List<RaftGroup> groups() {
    return groups;
  }

  public StartupOption startupOption() {
    return startupOption;
  }

  /** The properties the server runs with (the caller's plus ours). */
  public RaftProperties properties() {
    return properties;
  }

  /** The running Ratis server. */
  public RaftServer raftServer() {
    final RaftServer s = server;
    if (s == null) {
      throw new IllegalStateException(id + " is not started");
    }
    return s;
  }

  public RaftServer.Division division(RaftGroupId groupId) throws IOException {
    return raftServer().getDivision(groupId);
  }

  /** True when this peer is the leader of the group and ready to serve (its first entry is committed). */
  public boolean isReadyLeader(RaftGroupId groupId) {
    final RaftServer s = server;
    if (s == null || !hosts(s, groupId)) {
      return false;
    }
    try {
      final RaftServer.Division d = s.getDivision(groupId);
      return d.getInfo().isLeader() && d.getInfo().isLeaderReady();
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean hosts(RaftServer s, RaftGroupId groupId) {
    for (RaftGroupId hosted : s.getGroupIds()) {
      if (hosted.equals(groupId)) {
        return true;
      }
    }
    return false;
  }

  public boolean isRunning() {
    final RaftServer s = server;
    return s != null && s.getLifeCycleState().isRunning();
  }

  @Override
  public synchronized void close() throws IOException {
    final RaftServer s = server;
    if (s != null) {
      s.close();
    }
  }

  @Override
  public String toString() {
    return "KvServer " + id + "@" + address();
  }

  /** Builder; only the id, port and storage dir are required. */
  public static final class Builder {
    private RaftPeerId id;
    private int port;
    private Path storageDir;
    private final List<RaftGroup> groups = new ArrayList<>();
    private StateMachine.Registry stateMachines = groupId -> new KvStateMachine();
    private StartupOption startupOption = StartupOption.FORMAT;
    private RaftProperties properties;

    private Builder() {
    }

    public Builder setId(RaftPeerId id) {
      this.id = id;
      return this;
    }

    public Builder setPort(int port) {
      this.port = port;
      return this;
    }

    public Builder setStorageDir(Path storageDir) {
      this.storageDir = storageDir;
      return this;
    }

    public Builder addGroup(RaftGroup group) {
      this.groups.add(Objects.requireNonNull(group));
      return this;
    }

    public Builder setGroups(List<RaftGroup> groups) {
      this.groups.clear();
      groups.forEach(this::addGroup);
      return this;
    }

    /** Which state machine each group gets; default: a new {@link KvStateMachine} per group. */
    public Builder setStateMachineRegistry(StateMachine.Registry stateMachines) {
      this.stateMachines = Objects.requireNonNull(stateMachines);
      return this;
    }

    public Builder setStartupOption(StartupOption startupOption) {
      this.startupOption = Objects.requireNonNull(startupOption);
      return this;
    }

    /** Extra properties (copied); the caller's values win over our defaults. */
    public Builder setProperties(RaftProperties properties) {
      this.properties = properties;
      return this;
    }

    public KvServer build() {
      return new KvServer(this);
    }
  }
}
