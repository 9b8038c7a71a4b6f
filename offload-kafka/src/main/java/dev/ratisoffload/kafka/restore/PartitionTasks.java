package dev.ratisoffload.kafka.restore;

import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.primitives.DaemonThreads;
import java.util.AbstractMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;

/** The restore's passes run one task per partition, at most 8 at a time. */
final class PartitionTasks {

  private PartitionTasks() {
  }

  /**
   * A task per partition on a small pool; the first failure sets {@code abort} and is thrown. The results,
   * by partition, are gathered on the calling thread (the tasks share nothing but what they are given).
   */
  static <T> Map<Integer, T> runAll(List<Integer> partitions, IntFunction<T> task, AtomicBoolean abort) {
    Map<Integer, T> results = new TreeMap<>();
    if (partitions.isEmpty()) {
      return results;
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(partitions.size(), 8), DaemonThreads.named("kafka-restore"));
    try {
      CompletionService<Map.Entry<Integer, T>> done = new ExecutorCompletionService<>(pool);
      for (int p : partitions) {
        done.submit(() -> new AbstractMap.SimpleImmutableEntry<>(p, task.apply(p)));
      }
      RuntimeException first = null;
      for (int i = 0; i < partitions.size(); i++) {
        try {
          Map.Entry<Integer, T> result = done.take().get();
          results.put(result.getKey(), result.getValue());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          abort.set(true);
          throw new KafkaOffloadException(Kind.UNAVAILABLE, "interrupted", e);
        } catch (ExecutionException e) {
          abort.set(true);
          if (first == null) {
            first = e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
          }
        }
      }
      if (first != null) {
        throw first;
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }
}
