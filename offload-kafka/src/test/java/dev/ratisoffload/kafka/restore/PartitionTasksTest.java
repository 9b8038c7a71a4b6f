package dev.ratisoffload.kafka.restore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PartitionTasksTest {

  /** A result lost to a race would be a partition restored by nobody: every one must come back, in order. */
  @Test
  void everyPartitionsResultComesBackUnderItsPartition() {
    List<Integer> partitions = IntStream.range(0, 2_000).boxed().toList();
    for (int round = 0; round < 5; round++) {
      Map<Integer, String> results = PartitionTasks.runAll(partitions, p -> "plan of " + p, new AtomicBoolean());
      assertEquals(partitions.stream().collect(Collectors.toMap(p -> p, p -> "plan of " + p)), results);
      assertEquals(partitions, List.copyOf(results.keySet()));
    }
  }

  @Test
  void theFirstFailureIsThrownAndTheOthersAreToldToStop() {
    AtomicBoolean abort = new AtomicBoolean();
    IllegalStateException failure = new IllegalStateException("partition 3 failed");
    RuntimeException thrown = assertThrows(RuntimeException.class, () -> PartitionTasks.runAll(List.of(0, 1, 2, 3),
        p -> {
          if (p == 3) {
            throw failure;
          }
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
          while (!abort.get()) { // the others stop when told to, as the send pass does
            if (System.nanoTime() > deadline) {
              throw new AssertionError("partition " + p + " was never told to stop");
            }
            Thread.onSpinWait();
          }
          return p;
        }, abort));
    assertSame(failure, thrown);
    assertTrue(abort.get());
  }
}
