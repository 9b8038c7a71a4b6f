package dev.ratisoffload.drill;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.plugin.OffloadConfigKeys;
import dev.ratisoffload.plugin.SnapshotOffload;
import dev.ratisoffload.publish.PublishResult;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreUri;
import dev.ratisoffload.store.Stores;
import dev.ratisoffload.testkit.EmbeddedS3;
import dev.ratisoffload.testkit.RatisCluster;
import io.prometheus.client.CollectorRegistry;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * The project's main job on embedded defaults: a 3-peer reference cluster with several groups on
 * loopback, writes, snapshots, and generations published by each group's leader to an embedded S3
 * server and to a directory; then every generation is read back and verified.
 */
public final class Drill {

  private static final String CLUSTER_ID = "drill";
  private static final int GROUPS = 3;
  private static final int KEYS = 2000;

  private final PrintStream out = System.out;

  public static void main(String[] args) throws Exception {
    System.exit(new Drill().run());
  }

  int run() throws Exception {
    Path work = Files.createTempDirectory("offload-drill-");
    out.println("Ratis snapshot offload: end-to-end run on embedded defaults (work dir " + work + ")");
    try (EmbeddedS3 s3 = EmbeddedS3.start(work.resolve("s3"))) {
      s3.createBucket("backups");
      // The SDK's default credential chain reads these; a real node would use its own chain.
      System.setProperty("aws.accessKeyId", s3.accessKey());
      System.setProperty("aws.secretAccessKey", s3.secretKey());
      String s3Uri = "s3://backups/ratis";
      String dirUri = work.resolve("directory-store").toUri().toString();
      out.println("stores: " + s3Uri + " at " + s3.endpoint() + " (S3Proxy), and " + dirUri);

      Map<String, Map<RaftPeerId, SnapshotOffload>> offloads = Map.of(s3Uri, new ConcurrentHashMap<>(),
          dirUri, new ConcurrentHashMap<>());
      try (RatisCluster cluster = RatisCluster.builder(work.resolve("ratis")).peers(3).groups(GROUPS)
          .attach(server -> attachBoth(server.raftServer(), server.properties(), server.id(), s3, s3Uri,
              dirUri, offloads))
          .build().start()) {
        cluster.awaitLeaders(RatisCluster.DEFAULT_TIMEOUT);
        out.printf("cluster: %d peers on 127.0.0.1, %d groups%n", cluster.peerIds().size(), GROUPS);
        for (RaftGroupId group : cluster.groupIds()) {
          cluster.writeKeys(group, KEYS, "key-");
          long index = cluster.snapshot(group);
          out.printf("  group %s: wrote %d keys, leader %s took a snapshot at index %d%n", group.getUuid(),
              KEYS, cluster.leaderOf(group), index);
        }
        out.println();
        out.printf("%-10s %-36s %-5s %7s %5s %-9s %s%n", "store", "group", "peer", "index", "term",
            "result", "uploaded of total bytes");
        for (String uri : List.of(s3Uri, dirUri)) {
          for (RaftPeerId peer : cluster.peerIds()) {
            for (Map.Entry<RaftGroupId, PublishResult> e : offloads.get(uri).get(peer).publishNow().entrySet()) {
              out.println(describe(uri.startsWith("s3") ? "s3" : "directory", e.getKey(), peer, e.getValue()));
            }
          }
        }
      }
      out.println();
      int problems = verify(StoreUri.parse(s3Uri), settings(s3)) + verify(StoreUri.parse(dirUri), settings(s3));
      out.println(problems == 0 ? "every generation verified" : problems + " generations failed verification");
      return problems == 0 ? 0 : 3;
    }
  }

  private static AutoCloseable attachBoth(org.apache.ratis.server.RaftServer server, RaftProperties base,
      RaftPeerId id, EmbeddedS3 s3, String s3Uri, String dirUri,
      Map<String, Map<RaftPeerId, SnapshotOffload>> offloads) {
    List<SnapshotOffload> attached = new ArrayList<>();
    for (String uri : List.of(s3Uri, dirUri)) {
      RaftProperties p = new RaftProperties(base);
      OffloadConfigKeys.Store.setUri(p, uri);
      OffloadConfigKeys.Cluster.setId(p, CLUSTER_ID);
      OffloadConfigKeys.S3.setEndpoint(p, s3.endpoint().toString());
      OffloadConfigKeys.S3.setPathStyle(p, true);
      SnapshotOffload offload = SnapshotOffload.builder(server, p).registry(new CollectorRegistry())
          .withoutSchedule().attach();
      offloads.get(uri).put(id, offload);
      attached.add(offload);
    }
    return () -> {
      for (SnapshotOffload offload : attached) {
        offload.close();
      }
    };
  }

  private static S3Settings settings(EmbeddedS3 s3) {
    return S3Settings.builder().endpoint(s3.endpoint()).pathStyle(true).build();
  }

  private static String describe(String store, RaftGroupId group, RaftPeerId peer, PublishResult result) {
    if (result instanceof PublishResult.Published p) {
      return String.format("%-10s %-36s %-5s %7d %5d %-9s %d of %d", store, group.getUuid(), peer,
          p.id().index(), p.id().term(), "published", p.uploadedBytes(), p.totalBytes());
    }
    if (result instanceof PublishResult.Skipped s) {
      return String.format("%-10s %-36s %-5s %7s %5s %-9s %s", store, group.getUuid(), peer, "", "", "skipped",
          s.reason().label());
    }
    return String.format("%-10s %-36s %-5s %7s %5s %-9s %s", store, group.getUuid(), peer, "", "", "FAILED",
        ((PublishResult.Failed) result).message());
  }

  private int verify(StoreUri uri, S3Settings s3) throws IOException {
    int problems = 0;
    try (ObjectStore store = Stores.open(uri, s3)) {
      GenerationReader reader = new GenerationReader(store);
      for (GenerationReader.StoredGeneration g : reader.list("ratis/manifests/" + CLUSTER_ID + "/")) {
        try {
          Manifest m = reader.verify(g.id());
          out.printf("verified %s: group %s index %d, %d file(s), %d bytes, published by %s%n", uri,
              m.group(), m.index(), m.files().size(), m.totalBytes(), m.publisher().peer());
        } catch (RuntimeException e) {
          out.printf("FAILED %s: %s%n", uri, e.getMessage());
          problems++;
        }
      }
    }
    return problems;
  }
}
