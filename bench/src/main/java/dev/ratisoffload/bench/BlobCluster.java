package dev.ratisoffload.bench;

import dev.ratisoffload.plugin.OffloadConfigKeys;
import dev.ratisoffload.plugin.SnapshotOffload;
import dev.ratisoffload.publish.PublishResult;
import dev.ratisoffload.refkv.KvClient;
import dev.ratisoffload.testkit.RatisCluster;
import io.prometheus.client.CollectorRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;

/** A Ratis cluster of one group of {@link BlobStateMachine}s, and publishing its leader's snapshot. */
final class BlobCluster implements AutoCloseable {

  private final RatisCluster cluster;
  private final RaftGroupId group;
  private long snapshotIndex = -1;

  BlobCluster(Path dir, int peers) throws IOException {
    this.cluster = RatisCluster.builder(dir).peers(peers).groups(1)
        .stateMachines(id -> new BlobStateMachine()).build().start();
    this.group = cluster.groupIds().get(0);
    cluster.awaitLeaders(RatisCluster.DEFAULT_TIMEOUT);
  }

  RatisCluster cluster() {
    return cluster;
  }

  RaftGroupId group() {
    return group;
  }

  RaftPeerId leader() {
    return cluster.leaderOf(group);
  }

  /** Sends a command through the log and takes a snapshot on the leader; returns its index. */
  long commandAndSnapshot(String command) throws IOException {
    try (KvClient client = cluster.client(group)) {
      RaftClientReply reply = client.raftClient().io().send(Message.valueOf(command));
      if (!reply.isSuccess()) {
        throw new IOException("command '" + command + "' failed: " + reply.getException());
      }
    }
    snapshotIndex = cluster.snapshot(group);
    return snapshotIndex;
  }

  /** The leader's snapshot directory (every file of the snapshot is in it). */
  Path snapshotDir() throws IOException {
    RaftServer.Division division = cluster.server(leader()).division(group);
    return division.getStateMachine().getLatestSnapshot().getFiles().get(0).getPath().getParent();
  }

  long snapshotBytes() throws IOException {
    RaftServer.Division division = cluster.server(leader()).division(group);
    return division.getStateMachine().getLatestSnapshot().getFiles().stream()
        .mapToLong(f -> f.getPath().toFile().length()).sum();
  }

  /** The {@code key=value} words of a command from {@code from} on: more {@code offload.*} keys. */
  static Map<String, String> keys(String[] words, int from) {
    Map<String, String> keys = new LinkedHashMap<>();
    for (int i = from; i < words.length; i++) {
      String[] kv = words[i].split("=", 2);
      keys.put(kv[0], kv[1]);
    }
    return keys;
  }

  /** The publish bandwidth budget (bytes per second, 0: none) the plugin runs with, given these keys. */
  static long bandwidth(Map<String, String> extra) {
    RaftProperties p = new RaftProperties();
    extra.forEach(p::set);
    return OffloadConfigKeys.Upload.bandwidth(p);
  }

  /**
   * Attaches the plugin to the leader without a schedule, as a server does when it starts: its store
   * (the SDK's client, its threads) is made here, not in the publishes the benchmarks time.
   *
   * @param extra more {@code offload.*} keys
   */
  SnapshotOffload attach(String endpoint, String bucket, String clusterId, Map<String, String> extra) {
    RaftServer server = cluster.server(leader()).raftServer();
    RaftProperties p = new RaftProperties();
    OffloadConfigKeys.Store.setUri(p, "s3://" + bucket + "/ratis");
    OffloadConfigKeys.Cluster.setId(p, clusterId);
    OffloadConfigKeys.S3.setEndpoint(p, endpoint);
    OffloadConfigKeys.S3.setPathStyle(p, true);
    extra.forEach(p::set);
    return SnapshotOffload.builder(server, p).registry(new CollectorRegistry()).withoutSchedule().attach();
  }

  /** Publishes the group once through an attached plugin; a publish that did not publish is an error. */
  PublishResult.Published publish(SnapshotOffload offload) {
    PublishResult result = offload.publishNow(group);
    if (!(result instanceof PublishResult.Published published)) {
      throw new IllegalStateException("publish did not publish: " + result);
    }
    return published;
  }

  @Override
  public void close() throws IOException {
    cluster.close();
  }
}
