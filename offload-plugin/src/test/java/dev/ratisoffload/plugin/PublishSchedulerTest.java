package dev.ratisoffload.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.ratis.protocol.RaftGroupId;
import org.junit.jupiter.api.Test;

/** The scheduler's promise that a group never has two passes at once, across leaving and coming back. */
class PublishSchedulerTest {

  private static final int PASSES = 8;

  private final RaftGroupId group = RaftGroupId.randomId();
  private final AtomicReference<Set<RaftGroupId>> hosted = new AtomicReference<>(Set.of(group));
  private final AtomicInteger added = new AtomicInteger();
  private final AtomicInteger removed = new AtomicInteger();
  private final AtomicInteger started = new AtomicInteger();
  private final AtomicInteger running = new AtomicInteger();
  /** Passes that began while a pass other than the first was running. */
  private final AtomicInteger overlaps = new AtomicInteger();
  private final List<CountDownLatch> gates = new ArrayList<>();

  /** Each pass waits at its own gate, so the test decides when each one ends. */
  private void pass(RaftGroupId ignored) {
    int number = started.getAndIncrement();
    if (running.incrementAndGet() > 1 && number > 1) {
      overlaps.incrementAndGet();
    }
    try {
      gates.get(Math.min(number, PASSES - 1)).await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      running.decrementAndGet();
    }
  }

  @Test
  void aPassOfAGroupThatLeftAndCameBackEndingLateStartsNoSecondRunOfPasses() {
    for (int i = 0; i < PASSES; i++) {
      gates.add(new CountDownLatch(1));
    }
    ThreadPoolExecutor workers = (ThreadPoolExecutor) Executors.newFixedThreadPool(4);
    PublishScheduler.GroupListener listener = new PublishScheduler.GroupListener() {
      @Override
      public void added(RaftGroupId g) {
        added.incrementAndGet();
      }

      @Override
      public void removed(RaftGroupId g) {
        removed.incrementAndGet();
      }
    };
    try (PublishScheduler scheduler = new PublishScheduler(hosted::get, this::pass, listener,
        Duration.ofMillis(1), Duration.ZERO, workers)) {
      scheduler.start();
      await(() -> started.get() == 1, "the first pass starts");
      hosted.set(Set.of());
      await(() -> removed.get() == 1, "the group is seen to leave while its first pass runs");
      hosted.set(Set.of(group));
      await(() -> added.get() == 2 && started.get() == 2, "the group is found again and its new run's pass starts");

      gates.get(0).countDown(); // the old run's pass ends late
      await(() -> workers.getCompletedTaskCount() == 1, "the old run's pass has ended");
      for (int pass = 1; pass < PASSES - 1; pass++) {
        gates.get(pass).countDown();
        int next = pass + 2;
        await(() -> started.get() >= next, "pass " + next + " starts");
      }
      assertEquals(0, overlaps.get(), "passes of the group ran at the same time");
      assertEquals(2, added.get());
    } finally {
      gates.forEach(CountDownLatch::countDown);
      workers.shutdownNow();
    }
  }

  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }
}
