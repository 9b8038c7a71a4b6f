package dev.ratisoffload.drill;

import dev.ratisoffload.cli.S3Options;
import dev.ratisoffload.plugin.OffloadConfigKeys;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreDescription;
import dev.ratisoffload.store.StoreUri;
import dev.ratisoffload.testkit.TempDirs;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import org.apache.ratis.conf.RaftProperties;

/**
 * Where one drill run keeps its backups: a prefix of its own ({@code <store>/<run id>}) in the store
 * the operator named. The one description is written as the plugin's keys and as the command line's
 * flags, so the nodes and {@code offload} are pointed at exactly the same place.
 */
record StoreTarget(StoreDescription store) {

  /** The run's own prefix under {@code base}; a directory store gets the directory created. */
  static StoreTarget forRun(StoreDescription base, String runId) throws IOException {
    StoreUri parsed = base.uri();
    StoreUri own = "file".equals(parsed.scheme())
        ? new StoreUri("file", "", "", Files.createDirectories(parsed.directory().resolve(runId)))
        : new StoreUri("s3", parsed.bucket(), parsed.prefix().isEmpty() ? runId : parsed.prefix() + "/" + runId,
            null);
    return new StoreTarget(base.at(own));
  }

  /** The store flags of every {@code offload} subcommand that reads or writes this store. */
  List<String> flags() {
    return S3Options.flags(store);
  }

  /** The plugin's keys for this store and cluster, on a copy of {@code base}. */
  RaftProperties pluginProperties(RaftProperties base, String clusterId) {
    RaftProperties p = new RaftProperties(base);
    OffloadConfigKeys.Store.set(p, store);
    OffloadConfigKeys.Cluster.setId(p, clusterId);
    // An unreachable or read-only store fails the drill at start, naming the store, not at the first publish.
    OffloadConfigKeys.Preflight.setRequired(p, true);
    return p;
  }

  /** Deletes every object of the run's prefix (its generations and topic segments); returns how many. */
  int deleteAll() throws IOException {
    int deleted = 0;
    try (ObjectStore objects = store.open()) {
      for (ObjectInfo object : objects.list("")) {
        objects.delete(object.key());
        deleted++;
      }
    }
    if ("file".equals(store.uri().scheme())) {
      TempDirs.delete(store.uri().directory());
    }
    return deleted;
  }

  @Override
  public String toString() {
    return store.toString();
  }
}
