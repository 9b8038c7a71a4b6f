package dev.ratisoffload.refkv;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;

/**
 * A client of one Raft group of the key-value store.
 *
 * <p>Writes go through the leader and the log; {@link #get} is a linearizable read (the servers run
 * with {@code raft.server.read.option=LINEARIZABLE}); {@link #getFrom} reads one peer's local state
 * without consensus, to check what a particular peer holds.
 */
public final class KvClient implements AutoCloseable {
  /** Retries long enough to ride out a leader election, short enough to fail a test promptly. */
  public static final RetryPolicy DEFAULT_RETRY =
      RetryPolicies.retryUpToMaximumCountWithFixedSleep(60, TimeDuration.valueOf(200, TimeUnit.MILLISECONDS));

  private final RaftGroup group;
  private final RaftClient client;

  public KvClient(RaftGroup group) {
    this(group, null);
  }

  /**
   * @param leaderHint the peer believed to lead the group, tried first (null: any peer); without
   *     it the first requests go to an arbitrary peer and are redirected
   */
  public KvClient(RaftGroup group, RaftPeerId leaderHint) {
    this(group, leaderHint, new RaftProperties(), DEFAULT_RETRY);
  }

  public KvClient(RaftGroup group, RaftPeerId leaderHint, RaftProperties properties, RetryPolicy retryPolicy) {
    this.group = Objects.requireNonNull(group, "group");
    final RaftClient.Builder builder = RaftClient.newBuilder()
        .setRaftGroup(group)
        .setProperties(properties)
        .setRetryPolicy(retryPolicy);
    if (leaderHint != null) {
      builder.setLeaderId(leaderHint);
    }
    this.client = builder.build();
  }

  public RaftGroup group() {
    return group;
  }

  /** The underlying Ratis client, for anything this class does not cover. */
  public RaftClient raftClient() {
    return client;
  }

  /** Stores a value; returns true when the key already had one. */
  public boolean put(String key, byte[] value) throws IOException {
    return KvReply.parseFlag(write(KvCommand.put(key, value)));
  }

  public boolean put(String key, String value) throws IOException {
    return put(key, value.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Stores a value without waiting: many puts in flight at once are far faster than one at a
   * time (each write waits for a disk sync on a majority). Ratis applies one client's async
   * requests in the order they were sent.
   */
  public CompletableFuture<Boolean> putAsync(String key, byte[] value) {
    return client.async().send(KvCommand.put(key, value).toMessage()).thenApply(reply -> {
      try {
        return KvReply.parseFlag(check(reply));
      } catch (IOException e) {
        throw new CompletionException(e);
      }
    });
  }

  /** Removes a key; returns true when it existed. */
  public boolean delete(String key) throws IOException {
    return KvReply.parseFlag(write(KvCommand.delete(key)));
  }

  /** Linearizable read through the leader. */
  public Optional<byte[]> get(String key) throws IOException {
    return KvReply.parseValue(check(client.io().sendReadOnly(KvCommand.get(key).toMessage())));
  }

  public Optional<String> getString(String key) throws IOException {
    return get(key).map(v -> new String(v, StandardCharsets.UTF_8));
  }

  /** Reads the given peer's local state, without consensus (it may lag behind the leader). */
  public Optional<byte[]> getFrom(RaftPeerId peer, String key) throws IOException {
    return KvReply.parseValue(check(client.io().sendStaleRead(KvCommand.get(key).toMessage(), 0, peer)));
  }

  /** Number of keys, read linearizably. */
  public long count() throws IOException {
    return KvReply.parseCount(check(client.io().sendReadOnly(KvCommand.count().toMessage())));
  }

  /** Number of keys the given peer holds locally. */
  public long countOn(RaftPeerId peer) throws IOException {
    return KvReply.parseCount(check(client.io().sendStaleRead(KvCommand.count().toMessage(), 0, peer)));
  }

  /**
   * Asks the leader to take a snapshot now (even if few entries were written since the last one)
   * and returns the snapshot's log index.
   */
  public long takeSnapshot(RaftPeerId leaderId, Duration timeout) throws IOException {
    final RaftClientReply reply = client.getSnapshotManagementApi(leaderId).create(true, timeout.toMillis());
    check(reply);
    return reply.getLogIndex();
  }

  public long takeSnapshot(RaftPeerId leaderId) throws IOException {
    return takeSnapshot(leaderId, Duration.ofSeconds(30));
  }

  /** Asks the group to make {@code newLeader} its leader and waits for the transfer to complete. */
  public void transferLeadership(RaftPeerId newLeader, Duration timeout) throws IOException {
    check(client.admin().transferLeadership(newLeader, timeout.toMillis()));
  }

  private ByteString write(KvCommand command) throws IOException {
    return check(client.io().send(command.toMessage()));
  }

  private static ByteString check(RaftClientReply reply) throws IOException {
    if (!reply.isSuccess()) {
      final IOException cause = reply.getException();
      throw cause != null ? cause : new IOException("request failed: " + reply);
    }
    return reply.getMessage().getContent();
  }

  @Override
  public void close() throws IOException {
    client.close();
  }
}
