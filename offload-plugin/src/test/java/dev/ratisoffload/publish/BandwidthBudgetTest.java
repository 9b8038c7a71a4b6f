package dev.ratisoffload.publish;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.LongSupplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** The publish bandwidth budget on a fake clock: callers wait exactly as long as the budget requires. */
class BandwidthBudgetTest {

  private static final BigInteger NANOS_PER_SECOND = BigInteger.valueOf(1_000_000_000L);

  /** A clock that only sleeping moves (besides the test itself). */
  static final class FakeTime implements LongSupplier, BandwidthBudget.Sleeper {
    long now = 123_456_789L; // any origin: the budget must not assume 0
    long slept;
    int sleeps;

    @Override
    public long getAsLong() {
      return now;
    }

    @Override
    public void sleep(long nanos) {
      assertTrue(nanos > 0, "slept " + nanos + " ns");
      now += nanos;
      slept += nanos;
      sleeps++;
    }
  }

  /** One caller's step: wait {@code gapNanos}, then acquire {@code bytes}. */
  record Step(long gapNanos, long bytes) {}

  /** A budget and what its callers do, one after the other. */
  record Case(long bytesPerSecond, long burst, List<Step> steps) {

    /** Runs the steps on a fake clock; each grant is {time it returned, bytes}. */
    Replay replay() throws InterruptedException {
      FakeTime time = new FakeTime();
      BandwidthBudget budget = new BandwidthBudget(bytesPerSecond, burst, time, time);
      List<long[]> granted = new ArrayList<>();
      for (Step step : steps) {
        time.now += step.gapNanos();
        budget.acquire(step.bytes());
        granted.add(new long[] {time.now, step.bytes()});
      }
      return new Replay(time, budget, granted);
    }
  }

  record Replay(FakeTime time, BandwidthBudget budget, List<long[]> granted) {}

  @Provide
  Arbitrary<Case> cases() {
    Arbitrary<Long> gaps = Arbitraries.oneOf(Arbitraries.just(0L), Arbitraries.longs().between(0, 2_000_000_000L));
    Arbitrary<Long> bytes = Arbitraries.oneOf(Arbitraries.longs().between(1, 256 * 1024),
        Arbitraries.longs().between(1, 64L * 1024 * 1024));
    Arbitrary<List<Step>> steps = Combinators.combine(gaps, bytes).as(Step::new).list().ofMinSize(1).ofMaxSize(60);
    return Combinators.combine(Arbitraries.longs().between(1, 10_000_000_000L),
        Arbitraries.longs().between(0, 16L * 1024 * 1024), steps).as(Case::new);
  }

  @Property
  void bytesOverAnyIntervalNeverExceedTheBudgetPlusOneBurst(@ForAll("cases") Case c) throws InterruptedException {
    List<long[]> granted = c.replay().granted();
    long largest = c.steps().stream().mapToLong(Step::bytes).max().orElseThrow();
    BigInteger rate = BigInteger.valueOf(c.bytesPerSecond());
    // One burst (rounded up to whole nanoseconds of the budget), or one acquisition larger than it.
    BigInteger allowance = BigInteger.valueOf(c.burst()).multiply(NANOS_PER_SECOND).add(rate)
        .max(BigInteger.valueOf(largest).multiply(NANOS_PER_SECOND));
    for (int i = 0; i < granted.size(); i++) {
      long sum = 0;
      for (int j = i; j < granted.size(); j++) {
        sum += granted.get(j)[1];
        BigInteger interval = BigInteger.valueOf(granted.get(j)[0] - granted.get(i)[0]);
        BigInteger limit = allowance.add(rate.multiply(interval));
        assertTrue(BigInteger.valueOf(sum).multiply(NANOS_PER_SECOND).compareTo(limit) <= 0,
            sum + " bytes returned between acquisitions " + i + " and " + j + ", within " + interval + " ns, in " + c);
      }
    }
  }

  @Property
  void callersWaitNoLongerThanTheirBytesTakeAtTheBudget(@ForAll("cases") Case c) throws InterruptedException {
    Replay replay = c.replay();
    long longest = c.steps().stream().mapToLong(step -> BandwidthBudget.nanosFor(step.bytes(), c.bytesPerSecond()))
        .sum();
    assertTrue(replay.time().slept <= longest,
        "slept " + replay.time().slept + " ns where the bytes take " + longest + " ns");
    assertEquals(replay.time().slept, replay.budget().waitedNanos());
  }

  @Property
  void aSteadyReaderGetsTheBudgetAndNoMore(@ForAll @LongRange(min = 1024, max = 1_000_000_000L) long bytesPerSecond,
      @ForAll @IntRange(min = 1, max = 1_000_000) int readSize, @ForAll @IntRange(min = 1, max = 500) int reads)
      throws InterruptedException {
    FakeTime time = new FakeTime();
    BandwidthBudget budget = new BandwidthBudget(bytesPerSecond, readSize, time, time);
    long started = time.now;
    for (int i = 0; i < reads; i++) {
      budget.acquire(readSize);
    }
    long expected = BandwidthBudget.nanosFor((long) readSize * (reads - 1), bytesPerSecond);
    // The first read is the burst; every other one waits for its bytes, rounded up to a nanosecond.
    assertTrue(time.now - started >= expected - reads && time.now - started <= expected + reads,
        "took " + (time.now - started) + " ns, expected " + expected);
  }

  @Example
  void anUnlimitedBudgetNeverWaits() throws InterruptedException {
    FakeTime time = new FakeTime();
    BandwidthBudget budget = new BandwidthBudget(0, 0, time, time);
    for (int i = 0; i < 1000; i++) {
      budget.acquire(1L << 40);
    }
    assertEquals(0, time.sleeps);
    assertEquals(0, budget.acquiredBytes());
    assertFalse(budget.isLimited());
    assertFalse(BandwidthBudget.forReading(0).isLimited());
    assertTrue(BandwidthBudget.forReading(1).isLimited());
  }

  @Example
  void anIdleBudgetSavesUpOneBurstOnly() throws InterruptedException {
    FakeTime time = new FakeTime();
    BandwidthBudget budget = new BandwidthBudget(1_000_000, 100_000, time, time);
    budget.acquire(100_000);
    assertEquals(0, time.sleeps, "the first burst is free");
    time.now += 3_600_000_000_000L; // an hour idle
    budget.acquire(100_000);
    assertEquals(0, time.sleeps, "a burst is saved up");
    budget.acquire(100_000);
    assertEquals(100_000_000L, time.slept, "but only one: 100 KB at 1 MB/s is 100 ms");
  }

  @Example
  void aBudgetedStreamReadsTheSameBytesInSlicesAtTheBudget() throws IOException {
    byte[] data = new byte[3 * BudgetedInputStream.SLICE + 17];
    new Random(7).nextBytes(data);
    FakeTime time = new FakeTime();
    long bytesPerSecond = BudgetedInputStream.SLICE; // one slice per second
    BandwidthBudget budget = new BandwidthBudget(bytesPerSecond, BudgetedInputStream.SLICE, time, time);
    long started = time.now;
    byte[] read;
    try (InputStream in = new BudgetedInputStream(new ByteArrayInputStream(data), budget)) {
      byte[] first = new byte[data.length];
      int n = in.read(first, 0, first.length);
      assertEquals(BudgetedInputStream.SLICE, n, "one read returns at most a slice");
      int single = in.read();
      byte[] rest = in.readAllBytes();
      read = new byte[n + 1 + rest.length];
      System.arraycopy(first, 0, read, 0, n);
      read[n] = (byte) single;
      System.arraycopy(rest, 0, read, n + 1, rest.length);
      assertEquals(-1, in.read());
    }
    assertArrayEquals(data, read);
    assertEquals(data.length, budget.acquiredBytes());
    // Every byte after the first slice (the burst) waited for the budget (each read rounds up to a ns).
    long expected = BandwidthBudget.nanosFor(data.length - BudgetedInputStream.SLICE, bytesPerSecond);
    long took = time.now - started;
    assertTrue(took >= expected && took <= expected + 8, "took " + took + " ns, expected " + expected);
  }
}
