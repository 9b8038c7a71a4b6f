package dev.ratisoffload.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.stream.Stream;

/**
 * How long Raft's threads in this JVM waited for a CPU: runnable, on a run queue, not running. Read from
 * Linux's per-thread scheduler statistics ({@code /proc/self/task/<tid>/schedstat}: time on a CPU, time
 * waiting on a run queue, in nanoseconds) and thread names ({@code comm}). "Raft's threads" are all but
 * the plugin's ({@code offload-*} and its store's), the JVM's own (collector, compilers, VM threads)
 * and the thread that reads the figures (the cost benchmark's command thread, which runs the publish).
 * A thread that ends between two readings is left out; Raft's threads live as long as the group.
 */
final class RunQueueWait {

  private static final Path TASKS = Path.of("/proc/self/task");
  /** Name prefixes of the threads not counted: the plugin's and its store's, then the JVM's own. */
  private static final List<String> NOT_RAFT = List.of("offload-", "s3-part-upload", "GC Thread", "G1 ",
      "C1 CompilerThre", "C2 CompilerThre", "VM Thread", "VM Periodic Tas", "Service Thread");

  /** Run-queue wait of each thread counted, in nanoseconds, by thread id; null without statistics. */
  private final Map<String, Long> waitedNanos;

  private RunQueueWait(Map<String, Long> waitedNanos) {
    this.waitedNanos = waitedNanos;
  }

  /** A reading now; one without figures where the system keeps no such statistics (no /proc). */
  static RunQueueWait now() {
    Map<String, Long> waited = new HashMap<>();
    try (Stream<Path> tasks = Files.list(TASKS)) {
      String caller = Path.of("/proc/thread-self").toRealPath().getFileName().toString();
      tasks.filter(task -> !task.getFileName().toString().equals(caller)).forEach(task -> {
        try {
          String name = Files.readString(task.resolve("comm")).strip();
          if (NOT_RAFT.stream().noneMatch(name::startsWith)) {
            waited.put(task.getFileName().toString(),
                Long.parseLong(Files.readString(task.resolve("schedstat")).strip().split(" ")[1]));
          }
        } catch (IOException | RuntimeException ended) {
          // the thread ended while the directory was read
        }
      });
    } catch (IOException e) {
      return new RunQueueWait(null);
    }
    return new RunQueueWait(waited);
  }

  /** Seconds Raft's threads waited for a CPU since {@code earlier}, in all; empty without statistics. */
  OptionalDouble secondsSince(RunQueueWait earlier) {
    if (waitedNanos == null || earlier.waitedNanos == null) {
      return OptionalDouble.empty();
    }
    long nanos = 0;
    for (Map.Entry<String, Long> thread : waitedNanos.entrySet()) {
      nanos += thread.getValue() - earlier.waitedNanos.getOrDefault(thread.getKey(), 0L);
    }
    return OptionalDouble.of(nanos / 1e9);
  }
}
