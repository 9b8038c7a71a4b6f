package dev.ratisoffload.bench;

import dev.ratisoffload.plugin.SnapshotOffload;
import dev.ratisoffload.publish.PublishResult;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The publishing peer, in its own JVM (the benchmark caps its heap): a one-peer Ratis group of
 * {@link BlobStateMachine} with the offload plugin attached to publish on command.
 *
 * <p>Commands: {@code init <files> <bytesPerFile> <seed>}, {@code append <bytes>}, {@code rewrite <bytes>}
 * (each followed by a snapshot), and {@code publish <endpoint> <bucket> <clusterId> [key=value ...]}.
 */
public final class PublishPeer {

  public static void main(String[] args) throws Exception {
    try (BlobCluster cluster = new BlobCluster(Path.of(args[0]), 1)) {
      int[] files = {0};
      ChildJvm.serve(words -> {
        Map<String, Object> reply = new LinkedHashMap<>();
        switch (words[0]) {
          case "init" -> {
            files[0] = Integer.parseInt(words[1]);
            reply.put("index", cluster.commandAndSnapshot(String.join(" ", words)));
          }
          case "append" -> reply.put("index",
              cluster.commandAndSnapshot("append " + (files[0] - 1) + " " + words[1]));
          case "rewrite" -> {
            // A region in the middle of the middle file.
            int file = files[0] / 2;
            long length = cluster.snapshotBytes() / Math.max(1, files[0]);
            reply.put("index", cluster.commandAndSnapshot("rewrite " + file + " " + length / 3 + " " + words[1]));
          }
          case "publish" -> {
            try (SnapshotOffload offload = cluster.attach(words[1], words[2], words[3], BlobCluster.keys(words, 4))) {
              System.gc();
              resetPeaks();
              long gcBefore = gcMillis();
              long cpuBefore = processCpuNanos();
              long mainBefore = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
              long started = System.nanoTime();
              PublishResult.Published p = cluster.publish(offload);
              long nanos = System.nanoTime() - started;
              reply.put("cpuSeconds", (processCpuNanos() - cpuBefore) / 1e9);
              reply.put("readerCpuSeconds",
                  (ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - mainBefore) / 1e9);
              reply.put("seconds", nanos / 1e9);
              reply.put("total", p.totalBytes());
              reply.put("uploaded", p.uploadedBytes());
              reply.put("chunks", p.totalChunks());
              reply.put("uploadedChunks", p.uploadedChunks());
              reply.put("heapPeakMiB", heapPeak() >> 20);
              reply.put("heapMaxMiB", Runtime.getRuntime().maxMemory() >> 20);
              reply.put("gcMillis", gcMillis() - gcBefore);
            }
          }
          default -> throw new IllegalArgumentException("unknown command " + words[0]);
        }
        reply.put("dir", cluster.snapshotDir());
        reply.put("bytes", cluster.snapshotBytes());
        return reply;
      });
    }
    System.exit(0);
  }

  static void resetPeaks() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  /** The sum of the heap pools' peak use since {@link #resetPeaks} (an upper bound of the real peak). */
  static long heapPeak() {
    long sum = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }

  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  static long gcMillis() {
    long sum = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      sum += Math.max(0, gc.getCollectionTime());
    }
    return sum;
  }
}
