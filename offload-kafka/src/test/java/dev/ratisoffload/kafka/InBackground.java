package dev.ratisoffload.kafka;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * A backup or restore running on a thread of its own, as a follower does: the test stops it, waits for
 * it to fail, or asks whether it still runs, each within a deadline.
 */
final class InBackground<S> implements AutoCloseable {

  private final Runnable requestStop;
  private final Duration deadline;
  private final Thread thread;
  private volatile S result;
  private volatile Throwable failure;

  private InBackground(String name, Callable<S> run, Runnable requestStop, Duration deadline) {
    this.requestStop = requestStop;
    this.deadline = deadline;
    this.thread = new Thread(() -> {
      try {
        result = run.call();
      } catch (Throwable t) {
        failure = t;
      }
    }, name);
  }

  static <S> InBackground<S> start(String name, Callable<S> run, Runnable requestStop, Duration deadline) {
    InBackground<S> b = new InBackground<>(name, run, requestStop, deadline);
    b.thread.start();
    return b;
  }

  /** Asks it to stop and returns what it returned; fails the test if it does not stop or failed. */
  S stop() throws InterruptedException {
    requestStop.run();
    thread.join(deadline.toMillis());
    assertTrue(!thread.isAlive(), thread.getName() + " stops when asked");
    if (failure != null) {
      throw new AssertionError(thread.getName() + " failed", failure);
    }
    return result;
  }

  /** Whether it still runs; throws what ended it otherwise. */
  boolean running() {
    if (failure != null) {
      throw new AssertionError(thread.getName() + " failed", failure);
    }
    return thread.isAlive();
  }

  /** What ended it, if a failure did; null while it runs or when it returned. */
  Throwable failure() {
    return failure;
  }

  /** Waits for it to end by itself with a failure, and returns the failure. */
  Throwable awaitFailure() throws InterruptedException {
    thread.join(deadline.toMillis());
    assertTrue(!thread.isAlive(), thread.getName() + " ends by itself");
    assertTrue(failure != null, () -> thread.getName() + " ended without a failure: " + result);
    return failure;
  }

  @Override
  public void close() throws InterruptedException {
    requestStop.run();
    thread.join(deadline.toMillis());
  }
}
