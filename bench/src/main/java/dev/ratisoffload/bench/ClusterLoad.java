package dev.ratisoffload.bench;

import dev.ratisoffload.plugin.SnapshotOffload;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;

/**
 * A 3-peer Ratis group of {@link BlobStateMachine}s under a steady client write load, in its own JVM,
 * measuring write latency with and without its leader publishing.
 *
 * <p>The load is open-loop: a write is due every 1/rate seconds whatever happened to the previous ones,
 * and its latency counts from when it was due, so a stall shows in every write it delays.
 *
 * <p>Commands: {@code init <files> <bytesPerFile> <seed>} (then a snapshot on the leader);
 * {@code idle <seconds> <rate>}; {@code publish <rate> <endpoint> <bucket> <clusterId> [key=value ...]}
 * (the load runs for as long as the leader publishes; the keys are more {@code offload.*} keys).
 */
public final class ClusterLoad {

  private static final int WARM_UP_MILLIS = 1000;

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    AtomicLong calls = new AtomicLong();
    try (BlobCluster cluster = new BlobCluster(dir, 3);
        RaftClient client = RaftClient.newBuilder().setRaftGroup(cluster.cluster().group(cluster.group()))
            .setLeaderId(cluster.leader()).setProperties(new RaftProperties()).build()) {
      ChildJvm.serve(words -> {
        Map<String, Object> reply = new LinkedHashMap<>();
        switch (words[0]) {
          case "init" -> {
            reply.put("index", cluster.commandAndSnapshot(String.join(" ", words)));
            reply.put("bytes", cluster.snapshotBytes());
          }
          case "idle" -> {
            long millis = (long) (Double.parseDouble(words[1]) * 1000);
            Load load = new Load(client, Integer.parseInt(words[2])).start();
            Thread.sleep(WARM_UP_MILLIS);
            Window window = Window.start();
            long from = System.nanoTime();
            Thread.sleep(millis);
            long to = System.nanoTime();
            window.end(reply);
            load.stop();
            load.report(from, to, reply);
            load.writeTimeline(dir.resolve("writes-" + calls.incrementAndGet() + "-idle.tsv"), from, to);
          }
          case "publish" -> {
            Map<String, String> extra = BlobCluster.keys(words, 5);
            long from;
            long to;
            try (SnapshotOffload offload = cluster.attach(words[2], words[3], words[4], extra)) {
              Load load = new Load(client, Integer.parseInt(words[1])).start();
              Thread.sleep(WARM_UP_MILLIS);
              Window window = Window.start();
              from = System.nanoTime();
              cluster.publish(offload);
              to = System.nanoTime();
              window.end(reply);
              load.stop();
              load.report(from, to, reply);
              load.writeTimeline(dir.resolve("writes-" + calls.incrementAndGet() + "-publish.tsv"), from, to);
            }
            reply.put("publishSeconds", (to - from) / 1e9);
            reply.put("bandwidth", BlobCluster.bandwidth(extra));
          }
          default -> throw new IllegalArgumentException("unknown command " + words[0]);
        }
        return reply;
      });
    }
    System.exit(0);
  }

  /** What the group's JVM spent over one measured window: its CPU time, and Raft's threads' wait for a CPU. */
  private record Window(long cpuFrom, RunQueueWait waitFrom) {

    static Window start() {
      return new Window(PublishPeer.processCpuNanos(), RunQueueWait.now());
    }

    void end(Map<String, Object> reply) {
      reply.put("cpuSeconds", (PublishPeer.processCpuNanos() - cpuFrom) / 1e9);
      RunQueueWait.now().secondsSince(waitFrom).ifPresent(seconds -> reply.put("raftWaitSeconds", seconds));
    }
  }

  /** Writes at a fixed rate from one thread; records (due time, latency) of every write. */
  static final class Load {
    private final RaftClient client;
    private final long periodNanos;
    private final ConcurrentLinkedQueue<long[]> done = new ConcurrentLinkedQueue<>();
    private final AtomicLong failures = new AtomicLong();
    private volatile boolean stopped;
    private Thread thread;
    private long sent;

    Load(RaftClient client, int rate) {
      this.client = client;
      this.periodNanos = TimeUnit.SECONDS.toNanos(1) / rate;
    }

    Load start() {
      thread = new Thread(this::loop, "bench-load");
      thread.setDaemon(true);
      thread.start();
      return this;
    }

    private void loop() {
      long next = System.nanoTime();
      String padding = "x".repeat(80);
      while (!stopped) {
        long wait = next - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
          continue;
        }
        long due = next;
        next += periodNanos;
        sent++;
        CompletableFuture<?> reply = client.async()
            .send(Message.valueOf("w " + sent + " " + padding));
        reply.whenComplete((r, e) -> {
          if (e != null) {
            failures.incrementAndGet();
          } else {
            done.add(new long[] {due, System.nanoTime() - due});
          }
        });
      }
    }

    void stop() throws InterruptedException {
      stopped = true;
      thread.join();
      Thread.sleep(2000); // let the last writes complete
    }

    /** Latencies of the writes due within [from, to). */
    void report(long from, long to, Map<String, Object> reply) {
      long[] latencies = done.stream().filter(d -> d[0] >= from && d[0] < to).mapToLong(d -> d[1]).sorted()
          .toArray();
      reply.put("writes", latencies.length);
      reply.put("failures", failures.get());
      reply.put("p50ms", percentile(latencies, 0.50) / 1e6);
      reply.put("p99ms", percentile(latencies, 0.99) / 1e6);
      reply.put("maxms", latencies.length == 0 ? 0 : latencies[latencies.length - 1] / 1e6);
      reply.put("latenciesNs", Arrays.stream(latencies).mapToObj(Long::toString)
          .reduce((a, b) -> a + "," + b).orElse(""));
    }

    /**
     * Writes due within [from, to) as lines {@code <due, ms since this JVM started> <latency ms>}: the
     * times of the garbage collection log (-Xlog uptime), to match slow writes against pauses.
     */
    void writeTimeline(Path file, long from, long to) throws java.io.IOException {
      long startNanos = System.nanoTime()
          - java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() * 1_000_000;
      StringBuilder lines = new StringBuilder();
      done.stream().filter(d -> d[0] >= from && d[0] < to).sorted(java.util.Comparator.comparingLong(d -> d[0]))
          .forEach(d -> lines.append(String.format("%.1f %.2f%n", (d[0] - startNanos) / 1e6, d[1] / 1e6)));
      java.nio.file.Files.writeString(file, lines);
    }

    static long percentile(long[] sorted, double p) {
      if (sorted.length == 0) {
        return 0;
      }
      int i = (int) Math.ceil(p * sorted.length) - 1;
      return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
  }
}
