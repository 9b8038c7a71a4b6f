package dev.ratisoffload.kafka;

import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import dev.ratisoffload.store.StoreException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The pace of a follower (a following backup or restore): its waits, which a stop ends at once, and its
 * answer to a failure. Only a transient failure (the store or the cluster unreachable, an error Kafka
 * marks retriable) is tried again, after a backoff of 1 s doubling to 60 s; any other ends the follower
 * with its own kind, since retrying cannot change an authorization, a refused config or damaged data.
 *
 * <p>A stop must end the run within 2 seconds whatever it waits for: a broker call can hold the thread
 * for the broker timeout, a store call for the store's. So a stop gives the run {@link #STOP_GRACE} to
 * end by itself (a backup stores its open segments then), and after that interrupts the running thread,
 * again every 100 ms, until the run returns: every wait of the clients and the store ends on an
 * interrupt. What was stored stays consistent: a put is whole or absent, and records not stored are
 * read again (backup) or sent again from the high watermark (restore) by the next run.
 */
public final class FollowerPacing {

  /** How long a stop lets the run end by itself before interrupting it. */
  public static final Duration STOP_GRACE = Duration.ofSeconds(1);
  private static final long INTERRUPT_EVERY_MS = 100;

  public static final Duration FIRST_RETRY = Duration.ofSeconds(1);
  public static final Duration MAX_RETRY = Duration.ofSeconds(60);

  private final Object wake = new Object();
  private volatile boolean stopRequested;
  private final AtomicBoolean deadlineStarted = new AtomicBoolean();
  private Duration backoff = FIRST_RETRY;
  /** The thread running the follower; guarded by this. */
  private Thread runner;
  /** The run returned; guarded by this. */
  private boolean exited;

  /** Whether retrying may help. */
  public static boolean isTransient(RuntimeException e) {
    if (e instanceof KafkaOffloadException k) {
      return k.kind() == Kind.UNAVAILABLE;
    }
    if (e instanceof StoreException s) {
      return s.isRetriable();
    }
    return e instanceof UncheckedIOException || KafkaClients.isTransient(e);
  }

  /** Marks the calling thread as the run's: the one a stop interrupts once its grace has passed. */
  public synchronized void enter() {
    runner = Thread.currentThread();
  }

  /** The run returned: nothing more is interrupted, and an interrupt a stop left behind is cleared. */
  public void exit() {
    synchronized (this) {
      exited = true;
      runner = null;
    }
    Thread.interrupted();
  }

  /** Asks the follower to stop; safe from any thread. Ends a wait in progress at once, any other after the grace. */
  public void requestStop() {
    stopRequested = true;
    synchronized (wake) {
      wake.notifyAll();
    }
    if (deadlineStarted.compareAndSet(false, true)) {
      Thread deadline = new Thread(this::interruptUntilExited, "offload-stop-deadline");
      deadline.setDaemon(true);
      deadline.start();
    }
  }

  private void interruptUntilExited() {
    try {
      Thread.sleep(STOP_GRACE.toMillis());
      while (interruptRunner()) {
        Thread.sleep(INTERRUPT_EVERY_MS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Interrupts the run's thread; false once the run returned. */
  private synchronized boolean interruptRunner() {
    if (exited) {
      return false;
    }
    if (runner != null) {
      runner.interrupt();
    }
    return true;
  }

  public boolean stopRequested() {
    return stopRequested;
  }

  /** A round went through: the next failure starts the backoff anew. */
  public void succeeded() {
    backoff = FIRST_RETRY;
  }

  /** The wait before the next try: 1 s, then twice the last, at most 60 s. */
  public Duration nextRetryWait() {
    Duration wait = backoff;
    backoff = backoff.multipliedBy(2).compareTo(MAX_RETRY) > 0 ? MAX_RETRY : backoff.multipliedBy(2);
    return wait;
  }

  /** Waits for {@code duration}, or less when a stop is requested (an interrupt counts as one). */
  public void pause(Duration duration) {
    long deadline = System.nanoTime() + duration.toNanos();
    synchronized (wake) {
      while (!stopRequested) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        try {
          wake.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          stopRequested = true;
        }
      }
    }
  }
}
