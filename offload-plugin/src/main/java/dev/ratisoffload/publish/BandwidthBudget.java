package dev.ratisoffload.publish;

import java.math.BigInteger;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The most bytes per second that publishing may read from snapshots, shared by every publish that
 * holds it (the plugin holds one per peer, since the CPU that reading, hashing and uploading take is
 * the machine's). A caller {@link #acquire acquires} the bytes it has read and is made to wait until
 * the budget allows them.
 *
 * <p>It keeps the time at which the budget is next free (a token bucket written as a timestamp): each
 * acquisition moves it on by {@code bytes / rate}, from no earlier than {@code burst / rate} before
 * now, and returns once that time has come.
 * So over any interval of length {@code t}, the acquisitions that return within it total at most
 * {@code max(burst, largest acquisition) + rate * t} bytes, and an idle budget saves up at most one
 * burst.
 */
public final class BandwidthBudget {

  private static final long NANOS_PER_SECOND = TimeUnit.SECONDS.toNanos(1);
  private static final BandwidthBudget UNLIMITED = new BandwidthBudget(0, 0, System::nanoTime, Sleeper.SYSTEM);

  /** Waits; the system's is {@link TimeUnit#sleep}, tests pass one that moves a fake clock. */
  @FunctionalInterface
  interface Sleeper {
    Sleeper SYSTEM = TimeUnit.NANOSECONDS::sleep;

    void sleep(long nanos) throws InterruptedException;
  }

  private final long bytesPerSecond;
  private final long burstNanos;
  private final LongSupplier nanoTime;
  private final Sleeper sleeper;
  private final AtomicLong waitedNanos = new AtomicLong();
  private final AtomicLong acquiredBytes = new AtomicLong();
  /** When the budget is next free, in {@code nanoTime}'s terms. */
  private long freeAt;
  private boolean started;

  /**
   * @param bytesPerSecond the budget; 0 for no limit
   * @param burstBytes what an idle budget may let through at once
   * @param nanoTime a monotonic clock in nanoseconds, such as {@link System#nanoTime}
   */
  BandwidthBudget(long bytesPerSecond, long burstBytes, LongSupplier nanoTime, Sleeper sleeper) {
    if (bytesPerSecond < 0 || burstBytes < 0) {
      throw new IllegalArgumentException("a budget of " + bytesPerSecond + " bytes/s with a burst of "
          + burstBytes + " bytes: expected 0 or more");
    }
    this.bytesPerSecond = bytesPerSecond;
    this.burstNanos = bytesPerSecond == 0 ? 0 : nanosFor(burstBytes, bytesPerSecond);
    this.nanoTime = nanoTime;
    this.sleeper = sleeper;
  }

  /**
   * A budget of {@code bytesPerSecond} (0: no limit) for reading snapshots, on the system clock: its
   * burst is one read, so that even after a pause the reading does not race ahead of the budget.
   */
  public static BandwidthBudget forReading(long bytesPerSecond) {
    return bytesPerSecond == 0 ? UNLIMITED
        : new BandwidthBudget(bytesPerSecond, BudgetedInputStream.SLICE, System::nanoTime, Sleeper.SYSTEM);
  }

  /** No limit: {@link #acquire} never waits. */
  static BandwidthBudget unlimited() {
    return UNLIMITED;
  }

  boolean isLimited() {
    return bytesPerSecond > 0;
  }

  /** The budget in bytes per second; 0 for no limit. */
  public long bytesPerSecond() {
    return bytesPerSecond;
  }

  /** Bytes taken from the budget, in total (none while it is unlimited). */
  public long acquiredBytes() {
    return acquiredBytes.get();
  }

  /** Time callers of {@link #acquire} spent waiting for the budget, in total. */
  long waitedNanos() {
    return waitedNanos.get();
  }

  /**
   * Takes {@code bytes} from the budget, waiting until it allows them.
   *
   * @throws InterruptedException if interrupted while waiting; the bytes stay taken
   */
  public void acquire(long bytes) throws InterruptedException {
    if (bytesPerSecond == 0 || bytes <= 0) {
      return;
    }
    acquiredBytes.addAndGet(bytes);
    long now = nanoTime.getAsLong();
    long wait;
    synchronized (this) {
      long earliest = now - burstNanos;
      if (!started || freeAt - earliest < 0) {
        freeAt = earliest;
        started = true;
      }
      freeAt += nanosFor(bytes, bytesPerSecond);
      wait = freeAt - now;
    }
    if (wait > 0) {
      waitedNanos.addAndGet(wait);
      sleeper.sleep(wait);
    }
  }

  /** {@code bytes / rate} in nanoseconds, rounded up, so the budget is never overdrawn by rounding. */
  static long nanosFor(long bytes, long rate) {
    if (bytes <= Long.MAX_VALUE / NANOS_PER_SECOND) {
      long scaled = bytes * NANOS_PER_SECOND;
      return scaled / rate + (scaled % rate == 0 ? 0 : 1);
    }
    BigInteger[] qr = BigInteger.valueOf(bytes).multiply(BigInteger.valueOf(NANOS_PER_SECOND))
        .divideAndRemainder(BigInteger.valueOf(rate));
    BigInteger nanos = qr[1].signum() == 0 ? qr[0] : qr[0].add(BigInteger.ONE);
    return nanos.min(BigInteger.valueOf(Long.MAX_VALUE / 4)).longValue();
  }

  @Override
  public String toString() {
    return bytesPerSecond == 0 ? "unlimited" : bytesPerSecond + " bytes/s";
  }
}
