package dev.ratisoffload.bench;

import dev.ratisoffload.restore.ClusterRestorer;
import dev.ratisoffload.restore.GenerationChoice;
import dev.ratisoffload.restore.RestorePlan;
import dev.ratisoffload.restore.RestoreRequest;
import dev.ratisoffload.restore.TransferListener;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreUri;
import dev.ratisoffload.store.Stores;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The restore side, in its own JVM: the restore tool's library restoring the newest generation of every
 * group of a cluster into an empty data directory (downloaded, every chunk and file verified, written
 * and forced to disk, Ratis's metadata files written).
 *
 * <p>Command: {@code restore <bucket> <cluster> <dataDir>}.
 */
public final class RestoreRun {

  public static void main(String[] args) throws Exception {
    String endpoint = args[0];
    ChildJvm.serve(words -> {
      Map<String, Object> reply = new LinkedHashMap<>();
      try (ObjectStore store = Stores.open(StoreUri.parse("s3://" + words[1] + "/ratis"),
          S3Settings.builder().endpoint(URI.create(endpoint)).pathStyle(true).build())) {
        long started = System.nanoTime();
        long cpuBefore = PublishPeer.processCpuNanos();
        ClusterRestorer restorer = new ClusterRestorer(store);
        RestorePlan plan = restorer.plan(new RestoreRequest(words[2], List.of(), new GenerationChoice.Newest(),
            Map.of(), Path.of(words[3])));
        restorer.restore(plan, TransferListener.NONE);
        reply.put("seconds", (System.nanoTime() - started) / 1e9);
        reply.put("cpuSeconds", (PublishPeer.processCpuNanos() - cpuBefore) / 1e9);
        reply.put("bytes", plan.totalBytes());
      }
      return reply;
    });
    System.exit(0);
  }
}
