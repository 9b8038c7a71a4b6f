package dev.ratisoffload.refkv;

import java.io.IOException;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key-value logic shared by the state machines; subclasses only decide how a snapshot is laid
 * out in files ({@link #writeSnapshot} and {@link #readLatestSnapshot}).
 *
 * <p>The map and the last applied term-index change together under one lock, so a snapshot is
 * always the map exactly as of the index it is named after.
 */
public abstract class AbstractKvStateMachine extends BaseStateMachine {
  private static final Logger LOGGER = LoggerFactory.getLogger(AbstractKvStateMachine.class);

  /** A snapshot read back from disk: its term-index and its entries. */
  protected record LoadedSnapshot(TermIndex termIndex, SortedMap<String, byte[]> entries) {
  }

  private final KvMap map = new KvMap();
  private final ReadWriteLock lock = new ReentrantReadWriteLock();

  /** Writes {@code entries} as the snapshot at {@code termIndex} and makes it the latest one. */
  protected abstract void writeSnapshot(SortedMap<String, byte[]> entries, TermIndex termIndex)
      throws IOException;

  /** Reads the newest complete snapshot on disk (verifying checksums), or null if there is none. */
  protected abstract LoadedSnapshot readLatestSnapshot() throws IOException;

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage)
      throws IOException {
    getLifeCycle().startAndTransition(() -> {
      super.initialize(server, groupId, raftStorage);
      getStateMachineStorage().init(raftStorage);
      loadLatestSnapshot();
    }, IOException.class);
  }

  /** Ratis pauses the state machine before it installs a snapshot sent by the leader. */
  @Override
  public void pause() {
    if (getLifeCycle().compareAndTransition(LifeCycle.State.RUNNING, LifeCycle.State.PAUSING)) {
      getLifeCycle().transition(LifeCycle.State.PAUSED);
    }
  }

  /** Called after a snapshot was installed from the leader: the state becomes that snapshot. */
  @Override
  public void reinitialize() throws IOException {
    getLifeCycle().transition(LifeCycle.State.STARTING);
    loadLatestSnapshot();
    getLifeCycle().transition(LifeCycle.State.RUNNING);
  }

  private void loadLatestSnapshot() throws IOException {
    final LoadedSnapshot snapshot = readLatestSnapshot();
    if (snapshot == null) {
      LOGGER.info("{}: no snapshot found, starting from an empty map", this);
      return;
    }
    lock.writeLock().lock();
    try {
      map.replaceAll(snapshot.entries());
      setLastAppliedTermIndex(snapshot.termIndex());
    } finally {
      lock.writeLock().unlock();
    }
    LOGGER.info("{}: loaded snapshot {} with {} keys", this, snapshot.termIndex(), snapshot.entries().size());
  }

  @Override
  public long takeSnapshot() throws IOException {
    final SortedMap<String, byte[]> entries;
    final TermIndex last;
    lock.readLock().lock();
    try {
      entries = map.copy();
      last = getLastAppliedTermIndex();
    } finally {
      lock.readLock().unlock();
    }
    if (last == null || last.getIndex() < 0) {
      return RaftLog.INVALID_LOG_INDEX;
    }
    final SnapshotInfo latest = getLatestSnapshot();
    if (latest != null && latest.getTermIndex().equals(last)) {
      return last.getIndex(); // nothing applied since: the existing snapshot already is this one
    }
    writeSnapshot(entries, last);
    return last.getIndex();
  }

  /** Rejects malformed commands before they enter the log, so every peer applies the same thing. */
  @Override
  public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
    final KvCommand command = decode(request.getMessage());
    if (!command.op().isWrite()) {
      throw new StateMachineException(command.op() + " is a query: send it as a read-only request");
    }
    return super.startTransaction(request);
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    final LogEntryProto entry = trx.getLogEntry();
    final KvCommand command;
    try {
      command = decode(Message.valueOf(entry.getStateMachineLogEntry().getLogData()));
    } catch (StateMachineException e) {
      updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex()); // applied as a no-op
      return CompletableFuture.failedFuture(e);
    }
    lock.writeLock().lock();
    try {
      final Message reply = Message.valueOf(map.apply(command));
      updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
      return CompletableFuture.completedFuture(reply);
    } finally {
      lock.writeLock().unlock();
    }
  }

  @Override
  public CompletableFuture<Message> query(Message request) {
    try {
      final KvCommand command = decode(request);
      if (command.op().isWrite()) {
        throw new StateMachineException(command.op() + " is a write: send it through the log");
      }
      lock.readLock().lock();
      try {
        return CompletableFuture.completedFuture(Message.valueOf(map.query(command)));
      } finally {
        lock.readLock().unlock();
      }
    } catch (StateMachineException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Number of keys held right now (no consensus involved), for tests and diagnostics. */
  public int size() {
    lock.readLock().lock();
    try {
      return map.size();
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public void close() throws IOException {
    getLifeCycle().checkStateAndClose();
  }

  private static KvCommand decode(Message message) throws StateMachineException {
    try {
      return KvCommand.decode(message.getContent());
    } catch (IllegalArgumentException e) {
      throw new StateMachineException("malformed key-value command: " + e.getMessage());
    }
  }
}
