package dev.ratisoffload.kafka.backup;

import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.format.SegmentWriter.EncodedSegment;
import dev.ratisoffload.primitives.DaemonThreads;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores sealed segments on threads of their own while the backup's thread keeps reading. Each
 * partition's segments are stored in the order they were submitted, one at a time (each names its
 * predecessor's SHA-256); different partitions are stored side by side.
 *
 * <p>The backup's thread submits segments, and learns what was stored by {@link #takeStored()}: it
 * alone updates its cursors and tells its listener, so nothing counts as stored before its put and
 * its second-writer check returned. The first failure stops the queue: no put starts after it (so no
 * segment of a partition is stored after one that failed), and every later call on the backup's thread
 * throws it, the same exception the put threw. Memory is not bounded here: the backup counts the
 * segments it submitted until they are stored and waits ({@link #awaitStored()}) when they fill its
 * budget.
 */
final class UploadQueue implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(UploadQueue.class);
  /** How long closing waits for puts already started (they are not interrupted before). */
  private static final Duration SETTLE = Duration.ofSeconds(30);

  /** A segment the store now holds. */
  record Stored(SegmentKey key, EncodedSegment segment) {}

  /** One topic's partition: the unit whose segments are stored in order. */
  private record Chain(String topic, int partition) {}

  private final SegmentUploader uploader;
  private final ExecutorService executor;
  private final Map<Chain, ArrayDeque<Stored>> waiting = new HashMap<>();
  /** Partitions with a task on the executor: it stores their waiting segments, in order. */
  private final Set<Chain> active = new HashSet<>();
  private final List<Stored> stored = new ArrayList<>();
  private int pending;
  private RuntimeException failure;
  private boolean stopped;

  UploadQueue(SegmentUploader uploader, int threads, String name) {
    this.uploader = uploader;
    this.executor = Executors.newFixedThreadPool(threads, DaemonThreads.named(name));
  }

  /**
   * Queues a segment after the ones submitted before for its partition. After a failure it is dropped:
   * nothing is stored any more, and the failure is thrown by the next {@link #throwIfFailed()}.
   */
  synchronized void submit(SegmentKey key, EncodedSegment segment) {
    if (stopped) {
      throw new IllegalStateException("the upload queue is stopped");
    }
    if (failure != null) {
      return;
    }
    Chain chain = new Chain(key.topic(), key.partition());
    waiting.computeIfAbsent(chain, c -> new ArrayDeque<>()).add(new Stored(key, segment));
    pending++;
    if (active.add(chain)) {
      executor.execute(() -> storePartition(chain));
    }
  }

  /** Segments submitted and not yet taken back by {@link #takeStored()}. */
  synchronized int pending() {
    return pending;
  }

  /**
   * The segments stored since the last call, each partition's in chain order; then the failure, if a
   * put failed.
   */
  synchronized List<Stored> takeStored() {
    List<Stored> done = List.copyOf(stored);
    stored.clear();
    pending -= done.size();
    return done;
  }

  /** Throws the first failure of a put, if there was one. */
  synchronized void throwIfFailed() {
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * Waits until a segment was stored and not yet taken, a put failed, or nothing is pending.
   *
   * @throws InterruptedException when the waiting thread is interrupted
   */
  synchronized void awaitStored() throws InterruptedException {
    while (stored.isEmpty() && failure == null && pending > 0) {
      wait();
    }
  }

  /**
   * Starts no more puts and waits for those already started, so nothing more is written once this
   * returns (unless a put took longer than {@link #SETTLE}; it is then interrupted).
   */
  void stop() {
    synchronized (this) {
      stopped = true;
      waiting.values().forEach(ArrayDeque::clear);
    }
    executor.shutdown();
    try {
      if (!executor.awaitTermination(SETTLE.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("a segment put did not end within {} s of the backup stopping; interrupting it", SETTLE.toSeconds());
        executor.shutdownNow();
        executor.awaitTermination(SETTLE.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      executor.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    stop();
  }

  /** Runs on a store thread: stores the partition's waiting segments until none is left. */
  private void storePartition(Chain partition) {
    while (true) {
      Stored next;
      synchronized (this) {
        ArrayDeque<Stored> queue = waiting.get(partition);
        if (failure != null || stopped || queue.isEmpty()) {
          active.remove(partition);
          notifyAll();
          return;
        }
        next = queue.peek();
      }
      try {
        uploader.upload(next.key(), next.segment());
      } catch (RuntimeException | Error e) {
        synchronized (this) {
          if (failure == null) {
            failure = e instanceof RuntimeException r ? r : new IllegalStateException(e);
          }
          active.remove(partition);
          notifyAll();
        }
        if (e instanceof Error err) {
          throw err;
        }
        return;
      }
      synchronized (this) {
        waiting.get(partition).poll();
        stored.add(next);
        notifyAll();
      }
    }
  }
}
