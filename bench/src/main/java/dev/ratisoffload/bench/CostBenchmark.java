package dev.ratisoffload.bench;

import static dev.ratisoffload.bench.Benchmarks.num;

import dev.ratisoffload.plugin.OffloadConfigKeys;
import dev.ratisoffload.io.DurableFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Cost to the cluster: the p99 latency of client writes to a 3-peer group while its leader publishes a
 * generation of the full snapshot size, against the same load without publishing, measured alternately
 * in the same JVM (the peers and the load in one child JVM). Latencies of all runs of each kind are
 * pooled before the percentile is taken. Both kinds start warm: the load runs once before the first
 * measured run, and the leader publishes once (shown on a line of its own, not pooled), since the first
 * publish after the peers start also waits for the JIT compiler to compile the publishing code.
 *
 * <p>The store is S3Proxy in a JVM of its own at the lowest CPU priority ({@code nice -n 19}), keeping
 * its objects in memory ({@code /dev/shm}, where there is one): a real store runs on other machines,
 * and neither the CPU it spends receiving a generation nor its writing of a gigabyte to disk (which
 * makes the peers' log syncs wait behind the page cache's write-back) is the cluster's. The
 * publishing itself (reading, chunking, hashing, the SDK's requests) runs in the leader's JVM at normal
 * priority and is what this measures, within the publish bandwidth budget ({@code offload.upload.bandwidth}):
 * the plugin's default, or the one {@code --bandwidth} sets.
 */
final class CostBenchmark extends Benchmark {

  /** {@code offload.upload.bandwidth} for the publishing peer; null: the plugin's default. */
  private final String bandwidth;

  CostBenchmark(Setting setting, String bandwidth) {
    super(setting);
    this.bandwidth = bandwidth;
  }

  @Override
  void run() throws Exception {
    int rate = size.loadRate();
    Path storeDir = storeDir();
    try (ChildJvm store = ChildJvm.start("store at low priority", List.of("nice", "-n", "19"),
            List.of("-Xmx1g"), StoreServer.class, work.resolve("cost-store.log"), storeDir.toString());
        // The group's garbage collections are logged: their pauses stop all three peers at once.
        ChildJvm group = ChildJvm.start("3-peer group",
            List.of("-Xmx1g", "-Xlog:gc,safepoint:file=" + work.resolve("cost-cluster-gc.log")), ClusterLoad.class,
            work.resolve("cost-cluster.log"), work.resolve("cost-cluster").toString())) {
      String endpoint = store.call("endpoint").get("endpoint");
      group.call("init " + size.files() + " " + size.bytesPerFile() + " 7");
      boolean small = size.name().equals("small");
      group.call("idle " + (small ? 1 : 3) + " " + rate); // warm-up, discarded
      String keys = bandwidth == null ? "" : " " + OffloadConfigKeys.Upload.BANDWIDTH_KEY + "=" + bandwidth;
      // The first publish after the peers start also compiles the publishing code: shown, not pooled.
      store.call("bucket cost-0");
      Map<String, String> first = group.call("publish " + rate + " " + endpoint + " cost-0 cost0" + keys);
      store.call("drop cost-0");
      out.printf("  cost, first publish after start (not pooled): p50 %.1f ms p99 %.1f ms (%s writes, %.1f s)%n",
          num(first, "p50ms"), num(first, "p99ms"), first.get("writes"), num(first, "publishSeconds"));
      List<Long> idle = new ArrayList<>();
      List<Long> publishing = new ArrayList<>();
      double idleSeconds = Math.max(small ? 2 : 5, num(first, "publishSeconds"));
      String budget = "";
      for (int r = 1; r <= size.reps(); r++) {
        Map<String, String> i = group.call("idle " + idleSeconds + " " + rate);
        idle.addAll(latencies(i));
        String bucket = "cost-" + r;
        store.call("bucket " + bucket);
        Map<String, String> p = group.call("publish " + rate + " " + endpoint + " " + bucket + " cost" + r + keys);
        budget = budgetText(Benchmarks.lng(p, "bandwidth"));
        store.call("drop " + bucket);
        publishing.addAll(latencies(p));
        out.printf("  cost run %d: without publishing p50 %.1f ms p99 %.1f ms (%s writes, group CPU %.1f s%s);"
                + " while publishing (%.1f s, %s) p50 %.1f ms p99 %.1f ms (%s writes, group CPU %.1f s%s)%n", r,
            num(i, "p50ms"), num(i, "p99ms"), i.get("writes"), num(i, "cpuSeconds"), raftWait(i),
            num(p, "publishSeconds"), budget, num(p, "p50ms"), num(p, "p99ms"), p.get("writes"),
            num(p, "cpuSeconds"), raftWait(p));
        idleSeconds = Math.max(idleSeconds, num(p, "publishSeconds"));
      }
      double idleP99 = p99(idle);
      double busyP99 = p99(publishing);
      double ratio = busyP99 / idleP99;
      rows.add(new Row("cost: p99 write latency, 3-peer group, leader publishing " + size.snapshotText()
              + " at " + budget,
          String.format("%.1f ms", busyP99), String.format("%.1f ms (not publishing)", idleP99), ratio,
          "<= 1.25", ratio <= 1.25));
      notes.add(String.format("cost: %d writes/s open-loop; %d writes measured while publishing, %d without;"
              + " publishing within %s = %s (%s)", rate, publishing.size(), idle.size(),
          OffloadConfigKeys.Upload.BANDWIDTH_KEY, bandwidth == null
              ? OffloadConfigKeys.Upload.BANDWIDTH_DEFAULT.getInput() : bandwidth,
          bandwidth == null ? "the plugin's default" : "set by --bandwidth"));
    } finally {
      if (storeDir.startsWith("/dev/shm")) {
        DurableFiles.deleteTree(storeDir); // memory, not disk: never left behind, even with --keep
      }
    }
  }

  /** In memory where the machine has a tmpfs at /dev/shm; else in the work directory. */
  private Path storeDir() throws IOException {
    Path shm = Path.of("/dev/shm");
    if (Files.isDirectory(shm) && Files.isWritable(shm)) {
      return Files.createTempDirectory(shm, "offload-cost-s3-");
    }
    return work.resolve("cost-s3");
  }

  /** How long Raft's threads waited for a CPU in a window, where the system tells ({@link RunQueueWait}). */
  private static String raftWait(Map<String, String> window) {
    return window.containsKey("raftWaitSeconds")
        ? String.format(", Raft's threads waited %.1f s for a CPU", num(window, "raftWaitSeconds")) : "";
  }

  /** A budget in bytes per second as the table shows it. */
  static String budgetText(long bytesPerSecond) {
    return bytesPerSecond == 0 ? "no bandwidth budget" : Benchmarks.mib(bytesPerSecond) + "/s";
  }

  private static List<Long> latencies(Map<String, String> reply) {
    String text = reply.get("latenciesNs");
    return text == null || text.isEmpty() ? List.of() : Arrays.stream(text.split(",")).map(Long::valueOf).toList();
  }

  private static double p99(List<Long> latencies) {
    long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
    return ClusterLoad.Load.percentile(sorted, 0.99) / 1e6;
  }
}
