package dev.ratisoffload.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A stop ends a run that waits for something else (a broker call, a store call) within 2 seconds. */
class FollowerPacingTest {

  @Test
  void aStopInterruptsARunBlockedElsewhereOnceTheGraceHasPassed() throws Exception {
    FollowerPacing pacing = new FollowerPacing();
    CountDownLatch blocked = new CountDownLatch(1);
    CompletableFuture<Long> ended = CompletableFuture.supplyAsync(() -> {
      pacing.enter();
      try {
        blocked.countDown();
        new CountDownLatch(1).await(60, TimeUnit.SECONDS); // a call that would hold it for a minute
        return -1L;
      } catch (InterruptedException e) {
        return System.nanoTime();
      } finally {
        pacing.exit();
      }
    });
    assertTrue(blocked.await(10, TimeUnit.SECONDS));
    long stopped = System.nanoTime();
    pacing.requestStop();
    long millis = (ended.get(10, TimeUnit.SECONDS) - stopped) / 1_000_000;
    assertTrue(millis >= FollowerPacing.STOP_GRACE.toMillis() - 1 && millis < 2000, "interrupted after " + millis + " ms");
  }

  @Test
  void aStopEndsAPauseAtOnceAndInterruptsNothingAfterTheRun() throws Exception {
    FollowerPacing pacing = new FollowerPacing();
    pacing.enter();
    CompletableFuture.runAsync(pacing::requestStop);
    long start = System.nanoTime();
    pacing.pause(Duration.ofSeconds(60));
    assertTrue(pacing.stopRequested());
    assertTrue(System.nanoTime() - start < Duration.ofSeconds(10).toNanos());
    pacing.exit();
    CountDownLatch never = new CountDownLatch(1);
    assertFalse(never.await(FollowerPacing.STOP_GRACE.toMillis() + 300, TimeUnit.MILLISECONDS),
        "not interrupted once the run returned");
    assertEquals(false, Thread.currentThread().isInterrupted());
  }
}
