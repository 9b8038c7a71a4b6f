package dev.ratisoffload.bench;

import static dev.ratisoffload.bench.Benchmarks.lng;
import static dev.ratisoffload.bench.Benchmarks.mib;
import static dev.ratisoffload.bench.Benchmarks.num;
import static dev.ratisoffload.bench.Benchmarks.rate;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.io.DurableFiles;
import dev.ratisoffload.plugin.OffloadConfigKeys;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreUri;
import dev.ratisoffload.store.Stores;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * Publish, incremental publish and restore.
 *
 * <p>The publishing peer is a one-peer Ratis group of {@link BlobStateMachine} with the plugin attached,
 * in a JVM capped at 256 MiB of heap; its snapshot is several files of incompressible bytes. The
 * baseline is the SDK's transfer manager (parallel multipart uploads) in a JVM of its own, uploading the
 * same files. S3Proxy runs in this JVM. Runs alternate between the two and the best of each is kept.
 * The peer publishes without a bandwidth budget ({@code offload.upload.bandwidth = 0}): this compares
 * how fast the plugin can publish with what the SDK does, which has no budget either.
 */
final class PublishBenchmark extends Benchmark {

  static final String PEER_HEAP = "-Xmx256m";
  /** More keys of every publish: no bandwidth budget. */
  static final String UNLIMITED = " " + OffloadConfigKeys.Upload.BANDWIDTH_KEY + "=0";

  PublishBenchmark(Setting setting) {
    super(setting);
  }

  @Override
  void run() throws Exception {
    String endpoint = s3.endpoint().toString();
    String lastBucket = null;
    try (ChildJvm peer = ChildJvm.start("publishing peer", jvmOptions("publish-peer", PEER_HEAP), PublishPeer.class,
            work.resolve("publish-peer.log"), work.resolve("publish-peer").toString());
        ChildJvm sdk = ChildJvm.start("SDK baseline", jvmOptions("sdk-baseline", "-Xmx1g"), SdkBaseline.class,
            work.resolve("sdk-baseline.log"), endpoint)) {
      Map<String, String> init = peer.call("init " + size.files() + " " + size.bytesPerFile() + " 42");
      String dir = init.get("dir");
      long bytes = lng(init, "bytes");
      out.printf("publish: snapshot of %s in %d files at %s%n", mib(bytes), size.files() + 1, dir);

      double bestOurs = Double.MAX_VALUE;
      double bestSdk = Double.MAX_VALUE;
      Map<String, String> bestReply = null;
      for (int r = 1; r <= size.reps(); r++) {
        String sdkBucket = "baseline-" + r;
        s3.createBucket(sdkBucket);
        long storeBefore = PublishPeer.processCpuNanos();
        Map<String, String> b = sdk.call("upload " + sdkBucket + " " + dir);
        double sdkStoreCpu = (PublishPeer.processCpuNanos() - storeBefore) / 1e9;
        Benchmarks.dropBucket(s3, sdkBucket);
        bestSdk = Math.min(bestSdk, num(b, "seconds"));

        String ourBucket = "offload-" + r;
        s3.createBucket(ourBucket);
        storeBefore = PublishPeer.processCpuNanos();
        Map<String, String> o = peer.call("publish " + endpoint + " " + ourBucket + " bench" + UNLIMITED);
        double ourStoreCpu = (PublishPeer.processCpuNanos() - storeBefore) / 1e9;
        if (lastBucket != null) {
          Benchmarks.dropBucket(s3, lastBucket);
        }
        lastBucket = ourBucket;
        if (num(o, "seconds") < bestOurs) {
          bestOurs = num(o, "seconds");
          bestReply = o;
        }
        out.printf("  run %d: SDK %s in %.2f s (%s; CPU: client %.1f s, store %.1f s); ours %s in %.2f s (%s;"
                + " CPU: peer %.1f s of which reading and chunking %.1f s, store %.1f s), %d chunks, heap peak"
                + " %s MiB of %s, GC %s ms%n", r, mib(lng(b, "bytes")), num(b, "seconds"),
            rate(lng(b, "bytes"), num(b, "seconds")), num(b, "cpuSeconds"), sdkStoreCpu, mib(lng(o, "total")),
            num(o, "seconds"), rate(lng(o, "total"), num(o, "seconds")), num(o, "cpuSeconds"),
            num(o, "readerCpuSeconds"), ourStoreCpu, lng(o, "chunks"), o.get("heapPeakMiB"), o.get("heapMaxMiB"),
            o.get("gcMillis"));
      }
      double ratio = bestSdk / bestOurs;
      rows.add(new Row("publish " + size.snapshotText() + " (" + (size.files() + 1) + " files), peer heap 256 MiB,"
              + " no bandwidth budget",
          rate(bytes, bestOurs), rate(bytes, bestSdk) + " (SDK multipart)", ratio, ">= 0.80",
          ratio >= 0.8));
      notes.add(String.format("publish: best of %d runs each; our heap peak %s MiB (cap %s MiB); the peer publishes"
              + " with %s = 0 (no budget), incremental publishes too", size.reps(), bestReply.get("heapPeakMiB"),
          bestReply.get("heapMaxMiB"), OffloadConfigKeys.Upload.BANDWIDTH_KEY));

      // Incremental: the next generations, in the same bucket and cluster, de-duplicate against it.
      long onePercent = bytes / 100;
      incremental("incremental: append 1%", peer.call("append " + onePercent), peer, endpoint, lastBucket);
      incremental("incremental: rewrite a 1% region", peer.call("rewrite " + onePercent), peer, endpoint,
          lastBucket);
    }
    restore(lastBucket);
    Benchmarks.dropBucket(s3, lastBucket);
  }

  /**
   * Restore of the newest generation (the one after the rewrite) into an empty data directory, against
   * the SDK downloading the same chunk objects into files, unverified. Each side runs in a JVM started
   * for these runs, as a restore and a download would each start a process of their own: neither comes
   * to its first run warmed by the publish runs.
   */
  private void restore(String bucket) throws Exception {
    List<String> keys = chunkKeysOfNewest(bucket);
    Path keysFile = work.resolve("restore-keys.txt");
    java.nio.file.Files.write(keysFile, keys);
    double bestOurs = Double.MAX_VALUE;
    double bestSdk = Double.MAX_VALUE;
    long bytes = 0;
    try (ChildJvm restorer = ChildJvm.start("restore", jvmOptions("restore", "-Xmx512m"), RestoreRun.class,
            work.resolve("restore.log"), s3.endpoint().toString());
        ChildJvm sdk = ChildJvm.start("SDK baseline (downloads)", jvmOptions("sdk-download", "-Xmx1g"),
            SdkBaseline.class, work.resolve("sdk-download.log"), s3.endpoint().toString())) {
      for (int r = 1; r <= size.reps(); r++) {
        Path sdkDir = work.resolve("sdk-download");
        long storeBefore = PublishPeer.processCpuNanos();
        Map<String, String> b = sdk.call("fetch " + bucket + " " + keysFile + " " + sdkDir);
        double sdkStoreCpu = (PublishPeer.processCpuNanos() - storeBefore) / 1e9;
        DurableFiles.deleteTree(sdkDir);
        bestSdk = Math.min(bestSdk, num(b, "seconds"));
        Path dataDir = work.resolve("restored");
        storeBefore = PublishPeer.processCpuNanos();
        Map<String, String> o = restorer.call("restore " + bucket + " bench " + dataDir);
        double ourStoreCpu = (PublishPeer.processCpuNanos() - storeBefore) / 1e9;
        DurableFiles.deleteTree(dataDir);
        bestOurs = Math.min(bestOurs, num(o, "seconds"));
        bytes = lng(o, "bytes");
        out.printf("  restore run %d: SDK %s (%d objects) in %.2f s (%s; CPU: client %.1f s, store %.1f s);"
                + " ours %s in %.2f s (%s; CPU: restore %.1f s, store %.1f s)%n", r, mib(lng(b, "bytes")),
            keys.size(), num(b, "seconds"), rate(lng(b, "bytes"), num(b, "seconds")), num(b, "cpuSeconds"),
            sdkStoreCpu, mib(bytes), num(o, "seconds"), rate(bytes, num(o, "seconds")), num(o, "cpuSeconds"),
            ourStoreCpu);
      }
    }
    double ratio = bestSdk / bestOurs;
    rows.add(new Row("restore " + size.snapshotText() + " into a data directory, verified",
        rate(bytes, bestOurs), rate(bytes, bestSdk) + " (SDK, unverified)", ratio, ">= 0.80", ratio >= 0.8));
  }

  /** The full keys (from the bucket's root) of every chunk the newest generation names, in order. */
  private List<String> chunkKeysOfNewest(String bucket) {
    S3Settings settings = S3Settings.builder().endpoint(s3.endpoint()).pathStyle(true)
        .credentials(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
        .build();
    try (ObjectStore store = Stores.open(StoreUri.parse("s3://" + bucket + "/ratis"), settings)) {
      GenerationReader reader = new GenerationReader(store);
      GenerationReader.StoredGeneration newest = reader.list(Layout.manifestPrefix("bench")).stream()
          .reduce((a, b) -> b).orElseThrow();
      Manifest manifest = reader.readManifest(newest.id());
      List<String> keys = new ArrayList<>();
      for (Manifest.FileEntry file : manifest.files()) {
        for (Manifest.ChunkRef chunk : file.chunks()) {
          keys.add("ratis/" + Layout.chunkKey(manifest.cluster(), manifest.group(), chunk.sha256()));
        }
      }
      return keys;
    }
  }

  private void incremental(String workload, Map<String, String> changed, ChildJvm peer, String endpoint,
      String bucket) throws Exception {
    long bytes = lng(changed, "bytes");
    Map<String, String> o = peer.call("publish " + endpoint + " " + bucket + " bench" + UNLIMITED);
    long uploaded = lng(o, "uploaded");
    double ratio = uploaded / (double) bytes;
    out.printf("  %s: uploaded %s of %s (%d of %d chunks) in %.2f s%n", workload, mib(uploaded), mib(bytes),
        lng(o, "uploadedChunks"), lng(o, "chunks"), num(o, "seconds"));
    rows.add(new Row(workload, mib(uploaded) + " uploaded", mib(bytes) + " (SDK uploads all)", ratio,
        "<= 0.03", ratio <= 0.03));
  }
}
