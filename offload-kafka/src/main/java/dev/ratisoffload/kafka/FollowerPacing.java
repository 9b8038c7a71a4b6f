package dev.ratisoffload.kafka;

import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import dev.ratisoffload.store.StoreException;
import java.io.UncheckedIOException;
import java.time.Duration;

/**
 * The pace of a follower (a following backup or restore): its waits, which a stop ends at once, and its
 * answer to a failure. Only a transient failure (the store or the cluster unreachable, an error Kafka
 * marks retriable) is tried again, after a backoff of 1 s doubling to 60 s; any other ends the follower
 * with its own kind, since retrying cannot change an authorization, a refused config or damaged data.
 */
public final class FollowerPacing {

  public static final Duration FIRST_RETRY = Duration.ofSeconds(1);
  public static final Duration MAX_RETRY = Duration.ofSeconds(60);

  private final Object wake = new Object();
  private volatile boolean stopRequested;
  private Duration backoff = FIRST_RETRY;

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

  /** Asks the follower to stop; safe from any thread. Ends a wait in progress. */
  public void requestStop() {
    stopRequested = true;
    synchronized (wake) {
      wake.notifyAll();
    }
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
