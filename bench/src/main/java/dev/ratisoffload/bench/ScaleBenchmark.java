package dev.ratisoffload.bench;

import static dev.ratisoffload.bench.Benchmarks.lng;
import static dev.ratisoffload.bench.Benchmarks.num;

import java.util.List;
import java.util.Map;

/**
 * The scheduler with many groups on one peer (see {@link ScaleRun}); the peer runs in its own JVM.
 * The limit is {@code offload.schedule.concurrency} publishes at once, each with up to
 * {@code offload.upload.parallelism} (8) chunk uploads in flight.
 */
final class ScaleBenchmark extends Benchmark {

  static final int CONCURRENCY = 2;
  static final int PARALLELISM = 8;

  ScaleBenchmark(Setting setting) {
    super(setting);
  }

  @Override
  void run() throws Exception {
    int groups = size.groups();
    // First passes spread over the jitter; the next (idle) pass comes one interval later.
    String interval = groups >= 500 ? "90s" : "10s";
    String jitter = groups >= 500 ? "10s" : "2s";
    s3.createBucket("scale");
    try (ChildJvm peer = ChildJvm.start("scale peer", List.of("-Xmx2g", "-Xss512k"), ScaleRun.class,
        work.resolve("scale-peer.log"), work.resolve("scale-peer").toString())) {
      Map<String, String> r = peer.call("run " + s3.endpoint() + " scale " + groups + " " + interval + " "
          + jitter + " " + CONCURRENCY);
      out.printf("  scale: %d groups set up in %.1f s; first pass %.1f s (%s published, %s failed);"
              + " at most %s groups writing at once, %s writes in flight; idle pass over %.1f s: offload threads"
              + " %.0f ms CPU, %.1f MiB allocated, %s store requests; process CPU %.0f ms; plugin heap %.1f MiB%n",
          groups, num(r, "setupSeconds"), num(r, "passSeconds"), r.get("published"), r.get("failed"),
          r.get("maxGroupsWriting"), r.get("maxWritesInFlight"), num(r, "idleWindowSeconds"),
          num(r, "idleOffloadCpuMs"), num(r, "idleOffloadAllocMiB"), r.get("idleStoreRequests"),
          num(r, "idleProcessCpuMs"), num(r, "retainedHeapMiB"));
      boolean complete = lng(r, "published") == groups && lng(r, "failed") == 0;
      rows.add(new Row("scale: " + groups + " groups on one peer, first pass",
          String.format("%d published in %.1f s", lng(r, "published"), num(r, "passSeconds")), "-", Double.NaN,
          "every group, no failure", complete));
      int maxGroups = (int) lng(r, "maxGroupsWriting");
      int maxWrites = (int) lng(r, "maxWritesInFlight");
      rows.add(new Row("scale: most publishes writing to the store at once",
          maxGroups + " groups, " + maxWrites + " writes", "limit " + CONCURRENCY + " groups, "
          + CONCURRENCY * PARALLELISM + " writes", Double.NaN, "<= limit",
          maxGroups <= CONCURRENCY && maxWrites <= CONCURRENCY * PARALLELISM));
      rows.add(new Row("scale: idle pass of " + groups + " groups",
          String.format("%.0f ms CPU, %.1f MiB alloc, %s requests", num(r, "idleOffloadCpuMs"),
              num(r, "idleOffloadAllocMiB"), r.get("idleStoreRequests")),
          "-", Double.NaN, "reported", null));
      notes.add(String.format("scale: interval %s, jitter %s, concurrency %d; idle pass measured on the"
              + " plugin's threads over %.1f s (the whole process used %.0f ms CPU then); heap the plugin"
              + " retains for %d groups: %.1f MiB", interval, jitter, CONCURRENCY, num(r, "idleWindowSeconds"),
          num(r, "idleProcessCpuMs"), groups, num(r, "retainedHeapMiB")));
    } finally {
      Benchmarks.dropBucket(s3, "scale");
    }
  }
}
