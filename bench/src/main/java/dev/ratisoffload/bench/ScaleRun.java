package dev.ratisoffload.bench;

import dev.ratisoffload.plugin.OffloadConfigKeys;
import dev.ratisoffload.plugin.SnapshotOffload;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreUri;
import dev.ratisoffload.store.Stores;
import dev.ratisoffload.testkit.RatisCluster;
import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroupId;

/**
 * The scheduler at scale, in its own JVM: one Ratis peer hosting many groups of the reference key-value
 * store, each with a small snapshot, and the plugin attached with its schedule. Measures the first pass
 * (every group published once), the most concurrent writes the store saw, and what the next, idle pass
 * (nothing new to publish) costs.
 *
 * <p>Command: {@code run <endpoint> <bucket> <groups> <interval> <jitter> <concurrency>}.
 */
public final class ScaleRun {

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    ChildJvm.serve(words -> run(dir, words[1], words[2], Integer.parseInt(words[3]), words[4], words[5],
        Integer.parseInt(words[6])));
    System.exit(0);
  }

  static Map<String, Object> run(Path dir, String endpoint, String bucket, int groups, String interval,
      String jitter, int concurrency) throws Exception {
    Map<String, Object> reply = new LinkedHashMap<>();
    long t = System.nanoTime();
    // Ratis gives each group's log an 8 MiB direct write buffer by default: too much for a thousand
    // groups of tiny entries, so the peer is configured as a host of many small groups would be.
    RaftProperties server = new RaftProperties();
    server.set("raft.server.log.write.buffer.size", "128KB");
    server.set("raft.server.log.appender.buffer.byte-limit", "64KB");
    server.set("raft.server.log.preallocated.size", "64KB");
    try (RatisCluster cluster = RatisCluster.builder(dir).peers(1).groups(groups).properties(id -> server)
        .build().start()) {
      cluster.awaitLeaders(Duration.ofMinutes(5));
      for (RaftGroupId group : cluster.groupIds()) {
        cluster.writeKeys(group, 5, "key-");
        cluster.snapshot(group);
      }
      reply.put("setupSeconds", (System.nanoTime() - t) / 1e9);
      RaftProperties p = new RaftProperties();
      OffloadConfigKeys.Store.setUri(p, "s3://" + bucket + "/ratis");
      OffloadConfigKeys.Cluster.setId(p, "scale");
      OffloadConfigKeys.S3.setEndpoint(p, endpoint);
      OffloadConfigKeys.S3.setPathStyle(p, true);
      p.set(OffloadConfigKeys.Schedule.INTERVAL_KEY, interval);
      p.set(OffloadConfigKeys.Schedule.JITTER_KEY, jitter);
      OffloadConfigKeys.Schedule.setConcurrency(p, concurrency);
      CollectorRegistry registry = new CollectorRegistry();
      CountingStore store = new CountingStore(Stores.open(StoreUri.parse("s3://" + bucket + "/ratis"),
          S3Settings.builder().endpoint(URI.create(endpoint)).pathStyle(true).build()));
      long heapBefore = heapAfterGc();
      long started = System.nanoTime();
      try (SnapshotOffload offload = SnapshotOffload.builder(cluster.servers().get(0).raftServer(), p)
          .registry(registry).store(store).attach()) {
        waitFor(() -> sum(registry, "ratis_offload_published_total", l -> true) >= groups, Duration.ofMinutes(20));
        long passNanos = System.nanoTime() - started;
        ThreadCosts before = ThreadCosts.now();
        long requestsBefore = store.requests.get();
        waitFor(() -> sum(registry, "ratis_offload_skipped_total", l -> l.contains("unchanged")) >= groups,
            Duration.ofMinutes(20));
        ThreadCosts after = ThreadCosts.now();
        reply.put("passSeconds", passNanos / 1e9);
        reply.put("published", (long) sum(registry, "ratis_offload_published_total", l -> true));
        reply.put("failed", (long) sum(registry, "ratis_offload_failed_total", l -> true));
        reply.put("maxGroupsWriting", store.maxGroupsWriting.get());
        reply.put("maxWritesInFlight", store.maxWritesInFlight.get());
        reply.put("idleWindowSeconds", (after.at - before.at) / 1e9);
        reply.put("idleOffloadCpuMs", (after.offloadCpu - before.offloadCpu) / 1e6);
        reply.put("idleOffloadAllocMiB", (after.offloadAlloc - before.offloadAlloc) / (double) (1 << 20));
        reply.put("idleProcessCpuMs", (after.processCpu - before.processCpu) / 1e6);
        reply.put("idleStoreRequests", store.requests.get() - requestsBefore);
        reply.put("retainedHeapMiB", (heapAfterGc() - heapBefore) / (double) (1 << 20));
      } finally {
        store.close();
      }
    }
    return reply;
  }

  /** CPU time and allocation of the plugin's threads, and the process's CPU time. */
  record ThreadCosts(long at, long offloadCpu, long offloadAlloc, long processCpu) {
    static ThreadCosts now() {
      com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      long cpu = 0;
      long alloc = 0;
      for (Thread thread : Thread.getAllStackTraces().keySet()) {
        if (thread.getName().startsWith("offload-")) {
          cpu += Math.max(0, threads.getThreadCpuTime(thread.getId()));
          alloc += Math.max(0, threads.getThreadAllocatedBytes(thread.getId()));
        }
      }
      long process = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
          .getProcessCpuTime();
      return new ThreadCosts(System.nanoTime(), cpu, alloc, process);
    }
  }

  static long heapAfterGc() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** The sum of a metric's samples whose label values (joined) pass the filter. */
  static double sum(CollectorRegistry registry, String sampleName, Predicate<String> labels) {
    double total = 0;
    for (Collector.MetricFamilySamples family : Collections.list(registry.metricFamilySamples())) {
      for (Collector.MetricFamilySamples.Sample sample : family.samples) {
        if (sample.name.equals(sampleName) && labels.test(String.join(",", sample.labelValues))) {
          total += sample.value;
        }
      }
    }
    return total;
  }

  private static void waitFor(java.util.function.BooleanSupplier condition, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out after " + timeout);
      }
      Thread.sleep(100);
    }
  }
}
