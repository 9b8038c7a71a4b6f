package dev.ratisoffload.refkv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.storage.RaftStorage.StartupOption;
import org.apache.ratis.statemachine.StateMachine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A minimal multi-peer cluster for this module's own tests, built directly on {@link KvServer}
 * (the testkit's RatisCluster depends on this module, so it cannot be used here).
 */
final class LocalKvCluster implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LocalKvCluster.class);
  /**
   * How long tests wait for Raft (an election, a replay, a snapshot install): seconds are usual, but a
   * 2-CPU machine busy with other work can stretch them far past that.
   */
  static final Duration RAFT_TIMEOUT = Duration.ofMinutes(2);
  final List<RaftPeer> peers = new ArrayList<>();
  final List<RaftGroup> groups = new ArrayList<>();
  private final Path root;
  private final StateMachine.Registry stateMachines;
  private final RaftProperties properties;
  private final Map<RaftPeerId, KvServer> running = new ConcurrentHashMap<>();

  /** One group per state machine supplier, every group on every peer. */
  LocalKvCluster(Path root, int peerCount, List<Supplier<StateMachine>> groupStateMachines,
      RaftProperties properties) {
    this.root = root;
    this.properties = properties;
    for (int i = 0; i < peerCount; i++) {
      peers.add(RaftPeer.newBuilder().setId("p" + i).setAddress(KvServer.LOOPBACK + ":" + freePort()).build());
    }
    final Map<RaftGroupId, Supplier<StateMachine>> byGroup = new LinkedHashMap<>();
    for (Supplier<StateMachine> supplier : groupStateMachines) {
      final RaftGroup group = RaftGroup.valueOf(RaftGroupId.randomId(), peers);
      groups.add(group);
      byGroup.put(group.getGroupId(), supplier);
    }
    this.stateMachines = groupId -> byGroup.get(groupId).get();
  }

  Path storageDir(RaftPeerId id) {
    return root.resolve(id.toString());
  }

  void start(StartupOption option) throws IOException {
    for (RaftPeer peer : peers) {
      startPeer(peer.getId(), option);
    }
  }

  KvServer startPeer(RaftPeerId id, StartupOption option) throws IOException {
    final RaftPeer peer = peers.stream().filter(p -> p.getId().equals(id)).findFirst().orElseThrow();
    final KvServer server = KvServer.newBuilder()
        .setId(id)
        .setPort(Integer.parseInt(peer.getAddress().substring(peer.getAddress().lastIndexOf(':') + 1)))
        .setStorageDir(storageDir(id))
        .setGroups(groups)
        .setStateMachineRegistry(stateMachines)
        .setStartupOption(option)
        .setProperties(properties)
        .build();
    final long t0 = System.nanoTime();
    server.start();
    LOG.info("started {} ({}) in {} ms", id, option, (System.nanoTime() - t0) / 1_000_000);
    running.put(id, server);
    return server;
  }

  KvServer server(RaftPeerId id) {
    return running.get(id);
  }

  void stopPeer(RaftPeerId id) throws IOException {
    final KvServer server = running.remove(id);
    if (server != null) {
      final long t0 = System.nanoTime();
      server.close();
      LOG.info("stopped {} in {} ms", id, (System.nanoTime() - t0) / 1_000_000);
    }
  }

  /** Stops all peers in parallel: closing one Ratis server takes about a second. */
  void stopAll() throws IOException {
    final List<CompletableFuture<Void>> stops = new ArrayList<>();
    for (RaftPeerId id : new ArrayList<>(running.keySet())) {
      stops.add(CompletableFuture.runAsync(() -> {
        try {
          stopPeer(id);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }));
    }
    CompletableFuture.allOf(stops.toArray(new CompletableFuture[0])).join();
  }

  RaftPeerId awaitLeader(RaftGroupId groupId) {
    final long t0 = System.nanoTime();
    final RaftPeerId[] leader = new RaftPeerId[1];
    await("a ready leader of " + groupId, RAFT_TIMEOUT, () -> {
      for (KvServer s : running.values()) {
        if (s.isReadyLeader(groupId)) {
          leader[0] = s.id();
          return true;
        }
      }
      return false;
    });
    LOG.info("leader of {} is {} after {} ms", groupId, leader[0], (System.nanoTime() - t0) / 1_000_000);
    return leader[0];
  }

  KvClient client(RaftGroup group) {
    return new KvClient(group);
  }

  static void await(String what, Duration timeout, BooleanSupplier condition) {
    final long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
      }
      try {
        Thread.sleep(50); // polling interval, not synchronisation: the condition decides
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
    }
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() throws IOException {
    stopAll();
  }
}
