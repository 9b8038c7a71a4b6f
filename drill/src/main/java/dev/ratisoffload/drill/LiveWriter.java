package dev.ratisoffload.drill;

import dev.ratisoffload.refkv.KvClient;
import dev.ratisoffload.refkv.KvCommand;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.ratis.protocol.RaftClientReply;

/**
 * A client that keeps writing new keys to one group, a few requests in flight, and remembers the log
 * index of every acknowledged write. A generation at index I holds exactly the writes acknowledged at
 * an index up to I: what a restore from it must serve, and what it must not.
 */
final class LiveWriter implements AutoCloseable {

  private static final int IN_FLIGHT = 16;

  /** An acknowledged write: the value stored and the log index Ratis committed it at. */
  record Ack(String value, long index) {}

  private final KvClient client;
  private final String prefix;
  private final Semaphore slots = new Semaphore(IN_FLIGHT);
  private final Map<String, Ack> acked = new ConcurrentHashMap<>();
  private final AtomicInteger ackCount = new AtomicInteger();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final Thread thread;
  private volatile boolean stopping;

  LiveWriter(KvClient client, String prefix) {
    this.client = client;
    this.prefix = prefix;
    this.thread = new Thread(this::loop, "drill-writer-" + prefix);
    thread.setDaemon(true);
    thread.start();
  }

  private void loop() {
    for (int i = 0; !stopping && failure.get() == null; i++) {
      try {
        slots.acquire();
      } catch (InterruptedException e) {
        return;
      }
      String key = String.format("%s%06d", prefix, i);
      String value = key + "=live";
      client.raftClient().async()
          .send(KvCommand.put(key, value.getBytes(StandardCharsets.UTF_8)).toMessage())
          .whenComplete((reply, error) -> {
            try {
              record(key, value, reply, error);
            } finally {
              slots.release();
            }
          });
    }
  }

  private void record(String key, String value, RaftClientReply reply, Throwable error) {
    if (error == null && reply.isSuccess()) {
      acked.put(key, new Ack(value, reply.getLogIndex()));
      ackCount.incrementAndGet();
    } else {
      failure.compareAndSet(null, error != null ? error : reply.getException());
    }
  }

  /** Waits until {@code more} further writes are acknowledged (so some land after a snapshot). */
  void awaitMore(int more, Duration timeout) throws IOException {
    int target = ackCount.get() + more;
    long deadline = System.nanoTime() + timeout.toNanos();
    while (ackCount.get() < target) {
      throwIfFailed();
      if (System.nanoTime() > deadline) {
        throw new IOException("only " + ackCount.get() + " of " + target + " writes to " + prefix
            + "* acknowledged within " + timeout);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
    }
  }

  /**
   * Stops writing and waits for every write in flight to be answered, so that every key this writer
   * sent is either acknowledged (with its index) or failed the run.
   */
  SortedMap<String, Ack> stop() throws IOException {
    stopping = true;
    try {
      thread.join(TimeUnit.SECONDS.toMillis(30));
      if (!slots.tryAcquire(IN_FLIGHT, 30, TimeUnit.SECONDS)) {
        throw new IOException("writes to " + prefix + "* still unanswered 30 s after stopping");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    throwIfFailed();
    return new TreeMap<>(acked);
  }

  private void throwIfFailed() throws IOException {
    Throwable t = failure.get();
    if (t != null) {
      throw new IOException("a write to " + prefix + "* failed: " + t.getMessage(), t);
    }
  }

  @Override
  public void close() throws IOException {
    stopping = true;
    client.close();
  }
}
