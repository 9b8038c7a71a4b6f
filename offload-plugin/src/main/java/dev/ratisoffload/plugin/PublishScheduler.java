package dev.ratisoffload.plugin;

import dev.ratisoffload.primitives.DaemonThreads;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.ratis.protocol.RaftGroupId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each group's publish pass on its own timer: the first within the jitter after the group is
 * found, then every interval, each delay spread by a fresh random jitter so groups and nodes do not
 * stampede the store. Passes run on a pool of {@code concurrency} workers shared by all groups; a
 * group's next pass is scheduled only when its previous one ended, so a group never publishes twice at
 * once. Groups added to or removed from the server are picked up by a periodic discovery.
 */
final class PublishScheduler implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PublishScheduler.class);
  private static final Duration MAX_DISCOVERY_PERIOD = Duration.ofSeconds(2);

  private final Supplier<Iterable<RaftGroupId>> hostedGroups;
  private final Consumer<RaftGroupId> pass;
  private final GroupListener listener;
  private final Duration interval;
  private final Duration jitter;
  private final ScheduledExecutorService timer;
  private final ExecutorService workers;
  private final Map<RaftGroupId, Run> scheduled = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /**
   * A group's passes from when it is found until it leaves. A group that leaves and is found again gets a
   * new run, so a pass of the old one that ends late cannot schedule a second timer beside the new one.
   */
  private static final class Run {
    volatile ScheduledFuture<?> next;

    void cancel() {
      ScheduledFuture<?> pending = next;
      if (pending != null) {
        pending.cancel(false);
      }
    }
  }

  /** Told when a group starts or stops being scheduled. */
  interface GroupListener {
    void added(RaftGroupId group);

    void removed(RaftGroupId group);
  }

  PublishScheduler(Supplier<Iterable<RaftGroupId>> hostedGroups, Consumer<RaftGroupId> pass,
      GroupListener listener, Duration interval, Duration jitter, ExecutorService workers) {
    this.hostedGroups = hostedGroups;
    this.pass = pass;
    this.listener = listener;
    this.interval = interval;
    this.jitter = jitter;
    this.workers = workers;
    this.timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("offload-scheduler"));
  }

  void start() {
    long period = Math.max(1, Math.min(interval.toMillis(), MAX_DISCOVERY_PERIOD.toMillis()));
    timer.scheduleWithFixedDelay(this::discover, 0, period, TimeUnit.MILLISECONDS);
  }

  private void discover() {
    try {
      Set<RaftGroupId> hosted = new HashSet<>();
      hostedGroups.get().forEach(hosted::add);
      for (RaftGroupId group : hosted) {
        if (!scheduled.containsKey(group)) {
          listener.added(group);
          Run run = new Run();
          scheduled.put(group, run);
          scheduleNext(group, run, randomJitter());
        }
      }
      for (RaftGroupId group : Set.copyOf(scheduled.keySet())) {
        if (!hosted.contains(group)) {
          Run run = scheduled.remove(group);
          if (run != null) {
            run.cancel();
          }
          listener.removed(group);
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("cannot list the server's groups; retrying: {}", e.toString());
    }
  }

  /**
   * Schedules the run's next pass while it is still the group's run: atomic against {@link #discover}
   * removing the group, which cancels the pass scheduled last.
   */
  private void scheduleNext(RaftGroupId group, Run run, long delayMillis) {
    scheduled.computeIfPresent(group, (g, current) -> {
      if (current == run && !closed) {
        run.next = timer.schedule(() -> submit(g, run), delayMillis, TimeUnit.MILLISECONDS);
      }
      return current;
    });
  }

  private boolean isCurrent(RaftGroupId group, Run run) {
    return !closed && scheduled.get(group) == run;
  }

  private void submit(RaftGroupId group, Run run) {
    if (!isCurrent(group, run)) {
      return;
    }
    try {
      workers.execute(() -> {
        try {
          if (isCurrent(group, run)) { // not if the group left this server while waiting for a worker
            pass.accept(group);
          }
        } catch (RuntimeException e) {
          LOG.warn("publish pass of group {} failed unexpectedly: {}", group.getUuid(), e.toString(), e);
        } finally {
          scheduleNext(group, run, interval.toMillis() - jitter.toMillis() / 2 + randomJitter());
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closing
    }
  }

  private long randomJitter() {
    return jitter.isZero() ? 0 : ThreadLocalRandom.current().nextLong(jitter.toMillis() + 1);
  }

  /** Stops scheduling; passes already running are left to their owner to stop. */
  @Override
  public void close() {
    closed = true;
    timer.shutdownNow();
    scheduled.values().forEach(Run::cancel);
  }

}
