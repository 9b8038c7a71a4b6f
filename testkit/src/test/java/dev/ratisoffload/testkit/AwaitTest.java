package dev.ratisoffload.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {

  @Test
  void refusalsAreRetriedUntilTheAttemptSucceeds() {
    AtomicInteger tries = new AtomicInteger();
    String result = Await.retrying("a third try", Duration.ofSeconds(30), left -> {
      if (tries.incrementAndGet() < 3) {
        throw new IOException("refused #" + tries.get());
      }
      return Optional.of("done");
    });
    assertEquals("done", result);
    assertEquals(3, tries.get());
  }

  @Test
  void aTimeoutNamesWhatWasAwaitedAndTheLastRefusal() {
    IOException refusal = new IOException("DIFFERENT_LEADER");
    AssertionError e = assertThrows(AssertionError.class,
        () -> Await.retrying("p1 to lead g", Duration.ofMillis(200), left -> {
          throw refusal;
        }));
    assertTrue(e.getMessage().contains("waiting for p1 to lead g"), e.getMessage());
    assertTrue(e.getMessage().contains("DIFFERENT_LEADER"), e.getMessage());
    assertSame(refusal, e.getCause());
  }

  @Test
  void eachAttemptIsToldTheTimeLeftBeforeTheDeadline() {
    Duration timeout = Duration.ofSeconds(30);
    Duration left = Await.retrying("the time left", timeout, Optional::of);
    assertTrue(left.compareTo(timeout) <= 0 && left.compareTo(Duration.ofSeconds(20)) > 0, left.toString());
  }

  @Test
  void anErrorThatIsNotARefusalIsNotRetried() {
    AtomicInteger tries = new AtomicInteger();
    assertThrows(IllegalStateException.class, () -> Await.retrying("nothing", Duration.ofSeconds(30), left -> {
      tries.incrementAndGet();
      throw new IllegalStateException("a bug, not Raft");
    }));
    assertEquals(1, tries.get());
  }
}
