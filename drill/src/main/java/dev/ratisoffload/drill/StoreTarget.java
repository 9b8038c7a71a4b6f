package dev.ratisoffload.drill;

import dev.ratisoffload.plugin.OffloadConfigKeys;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreUri;
import dev.ratisoffload.store.Stores;
import dev.ratisoffload.testkit.TempDirs;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.conf.RaftProperties;

/**
 * Where one drill run keeps its backups: a prefix of its own ({@code <store>/<run id>}) in the store
 * the operator named, with the S3 settings in the words of both the plugin's keys and the command
 * line's flags, so the nodes and {@code offload} are pointed at exactly the same place.
 */
record StoreTarget(StoreUri uri, String endpoint, String region, String profile, boolean pathStyle) {

  /** The run's own prefix under {@code base}; a directory store gets the directory created. */
  static StoreTarget forRun(String base, String runId, String endpoint, String region, String profile,
      boolean pathStyle) throws IOException {
    StoreUri parsed = StoreUri.parse(base);
    StoreUri own = "file".equals(parsed.scheme())
        ? new StoreUri("file", "", "", Files.createDirectories(parsed.directory().resolve(runId)))
        : new StoreUri("s3", parsed.bucket(), parsed.prefix().isEmpty() ? runId : parsed.prefix() + "/" + runId,
            null);
    return new StoreTarget(own, endpoint, region, profile, pathStyle);
  }

  /** The store flags of every {@code offload} subcommand that reads or writes this store. */
  List<String> flags() {
    List<String> flags = new ArrayList<>(List.of("--store", uri.toString()));
    if (endpoint != null) {
      flags.addAll(List.of("--endpoint", endpoint));
    }
    if (region != null) {
      flags.addAll(List.of("--region", region));
    }
    if (profile != null) {
      flags.addAll(List.of("--profile", profile));
    }
    if (pathStyle) {
      flags.add("--path-style");
    }
    return flags;
  }

  /** The plugin's keys for this store and cluster, on a copy of {@code base}. */
  RaftProperties pluginProperties(RaftProperties base, String clusterId) {
    RaftProperties p = new RaftProperties(base);
    OffloadConfigKeys.Store.setUri(p, uri.toString());
    OffloadConfigKeys.Cluster.setId(p, clusterId);
    if (endpoint != null) {
      OffloadConfigKeys.S3.setEndpoint(p, endpoint);
    }
    if (region != null) {
      OffloadConfigKeys.S3.setRegion(p, region);
    }
    if (profile != null) {
      OffloadConfigKeys.S3.setProfile(p, profile);
    }
    OffloadConfigKeys.S3.setPathStyle(p, pathStyle);
    // An unreachable or read-only store fails the drill at start, naming the store, not at the first publish.
    OffloadConfigKeys.Preflight.setRequired(p, true);
    return p;
  }

  /** Deletes every object of the run's prefix (its generations and topic segments); returns how many. */
  int deleteAll() throws IOException {
    S3Settings.Builder settings = S3Settings.builder().region(region).profile(profile).pathStyle(pathStyle);
    if (endpoint != null) {
      settings.endpoint(URI.create(endpoint));
    }
    int deleted = 0;
    try (ObjectStore store = Stores.open(uri, settings.build())) {
      for (ObjectInfo object : store.list("")) {
        store.delete(object.key());
        deleted++;
      }
    }
    if ("file".equals(uri.scheme())) {
      TempDirs.delete(uri.directory());
    }
    return deleted;
  }

  @Override
  public String toString() {
    return uri + (endpoint != null ? " at " + endpoint : "");
  }
}
