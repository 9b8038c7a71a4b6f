package dev.ratisoffload.testkit;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for a condition with a deadline, polling it. Tests use this instead of sleeping for a
 * guessed time: they continue as soon as the condition holds and fail with a clear message if it
 * never does.
 */
public final class Await {
  private static final long POLL_MILLIS = 50;

  private Await() {
  }

  /**
   * One try at something Raft may refuse for a while (no leader yet, leadership moving, a request
   * timing out on a busy machine): empty or an {@link IOException} means "not yet, try again".
   */
  @FunctionalInterface
  public interface Attempt<T> {
    /** @param left the time left before the deadline, to bound any call that blocks */
    Optional<T> run(Duration left) throws IOException;
  }

  /** Waits until {@code condition} is true; fails with an AssertionError naming {@code what} on timeout. */
  public static void until(String what, Duration timeout, BooleanSupplier condition) {
    value(what, timeout, () -> condition.getAsBoolean() ? Optional.of(Boolean.TRUE) : Optional.empty());
  }

  /** Waits until {@code probe} yields a value and returns it. */
  public static <T> T value(String what, Duration timeout, Supplier<Optional<T>> probe) {
    return retrying(what, timeout, left -> probe.get());
  }

  /**
   * Repeats {@code attempt} until it yields a value, retrying on {@link IOException}; on timeout the
   * AssertionError names {@code what} and carries the last refusal, so a failure says what Raft answered.
   */
  public static <T> T retrying(String what, Duration timeout, Attempt<T> attempt) {
    final long deadline = System.nanoTime() + timeout.toNanos();
    IOException lastRefusal = null;
    while (true) {
      try {
        final Optional<T> result = attempt.run(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        if (result.isPresent()) {
          return result.get();
        }
      } catch (IOException e) {
        lastRefusal = e;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what
            + (lastRefusal == null ? "" : "; the last attempt was refused: " + lastRefusal), lastRefusal);
      }
      try {
        Thread.sleep(POLL_MILLIS); // the poll interval; the condition, not the sleep, decides
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for " + what, e);
      }
    }
  }
}
