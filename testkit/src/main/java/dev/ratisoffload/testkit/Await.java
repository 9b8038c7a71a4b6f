package dev.ratisoffload.testkit;

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

  /** Waits until {@code condition} is true; fails with an AssertionError naming {@code what} on timeout. */
  public static void until(String what, Duration timeout, BooleanSupplier condition) {
    value(what, timeout, () -> condition.getAsBoolean() ? Optional.of(Boolean.TRUE) : Optional.empty());
  }

  /** Waits until {@code probe} yields a value and returns it. */
  public static <T> T value(String what, Duration timeout, Supplier<Optional<T>> probe) {
    final long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      final Optional<T> result = probe.get();
      if (result.isPresent()) {
        return result.get();
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
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
