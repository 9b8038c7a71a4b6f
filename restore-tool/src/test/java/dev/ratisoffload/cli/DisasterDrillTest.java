package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.plugin.OffloadConfigKeys;
import dev.ratisoffload.plugin.SnapshotOffload;
import dev.ratisoffload.publish.PublishResult;
import dev.ratisoffload.refkv.FileListKvStateMachine;
import dev.ratisoffload.refkv.KvStateMachine;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.S3ObjectStore;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreUri;
import dev.ratisoffload.testkit.EmbeddedS3;
import dev.ratisoffload.testkit.FreePorts;
import dev.ratisoffload.testkit.RatisCluster;
import io.prometheus.client.CollectorRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * The disaster drill, end to end: a 3-peer reference cluster with three groups and thousands of keys
 * publishes to S3 (S3Proxy) and to a directory; every peer is stopped and its storage deleted;
 * {@code offload restore} runs once per peer; the cluster starts with RECOVER, elects leaders, serves
 * every key and accepts new writes. Once on the old ports, once moved to new ports with
 * {@code --peers}, once from the directory store.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DisasterDrillTest {

  static final String CLUSTER = "drill";
  static final String BUCKET = "backups";
  static final int KEYS_PER_GROUP = 2000;
  static final Duration LEADERS = RatisCluster.DEFAULT_TIMEOUT;

  @TempDir
  static Path tmp;

  EmbeddedS3 s3;
  String s3Uri;
  Path directoryStore;
  List<RaftGroupId> groupIds;
  Map<RaftPeerId, Integer> oldPorts;
  final Map<RaftGroupId, SortedMap<String, String>> written = new LinkedHashMap<>();

  @BeforeAll
  void publishThenLoseTheCluster() throws Exception {
    s3 = EmbeddedS3.start();
    s3.createBucket(BUCKET);
    s3Uri = "s3://" + BUCKET + "/drill";
    // The command line finds credentials where the AWS SDK's default chain looks: here, system properties.
    System.setProperty("aws.accessKeyId", s3.accessKey());
    System.setProperty("aws.secretAccessKey", s3.secretKey());
    directoryStore = Files.createDirectories(tmp.resolve("directory-store"));

    groupIds = List.of(RaftGroupId.randomId(), RaftGroupId.randomId(), RaftGroupId.randomId());
    RaftGroupId multiFile = groupIds.get(2);
    RaftProperties offloadKeys = new RaftProperties();
    OffloadConfigKeys.Cluster.setId(offloadKeys, CLUSTER);
    OffloadConfigKeys.Store.setUri(offloadKeys, s3Uri);
    offloadKeys.set(OffloadConfigKeys.Upload.CHUNK_SIZE_KEY, "16KB");
    try (ObjectStore s3Store = openS3(); ObjectStore dirStore = new DirectoryObjectStore(directoryStore)) {
      Map<RaftPeerId, List<SnapshotOffload>> offloads = new LinkedHashMap<>();
      RatisCluster cluster = RatisCluster.builder(tmp.resolve("lost"))
          .peers(3)
          .groupIds(groupIds)
          .stateMachines(g -> g.equals(multiFile) ? new FileListKvStateMachine() : new KvStateMachine())
          .properties(peer -> new RaftProperties(offloadKeys))
          .attach(server -> {
            SnapshotOffload toS3 = SnapshotOffload.builder(server.raftServer(), server.properties())
                .store(s3Store).registry(new CollectorRegistry()).withoutSchedule().attach();
            RaftProperties dirKeys = new RaftProperties(server.properties());
            OffloadConfigKeys.Spool.setDir(dirKeys, tmp.resolve("spool-dir-" + server.id()).toFile());
            SnapshotOffload toDir = SnapshotOffload.builder(server.raftServer(), dirKeys)
                .store(dirStore).registry(new CollectorRegistry()).withoutSchedule().attach();
            offloads.put(server.id(), List.of(toS3, toDir));
            return () -> {
              toS3.close();
              toDir.close();
            };
          })
          .build()
          .start();
      try {
        oldPorts = cluster.ports();
        cluster.awaitLeaders(LEADERS);
        // Move group 1's leadership twice first: its snapshot is taken in a later term than the
        // others', the case where a restored raft-meta with a low term breaks the group.
        RaftGroupId moved = groupIds.get(1);
        for (int i = 0; i < 2; i++) {
          RaftPeerId leader = cluster.leaderOf(moved);
          cluster.transferLeadership(moved, cluster.peerIds().stream().filter(p -> !p.equals(leader))
              .findFirst().orElseThrow());
        }
        for (RaftGroupId group : groupIds) {
          written.put(group, cluster.writeKeys(group, KEYS_PER_GROUP, "k-"));
          cluster.snapshot(group);
          RaftPeerId leader = cluster.leaderOf(group);
          for (SnapshotOffload offload : offloads.get(leader)) {
            assertInstanceOf(PublishResult.Published.class, offload.publishNow(group));
          }
        }
        long movedTerm = new GenerationReader(s3Store).newest(CLUSTER, moved.getUuid().toString())
            .orElseThrow().id().term();
        assertTrue(movedTerm >= 3, "a snapshot taken in a late term: " + movedTerm);
      } finally {
        cluster.close();
      }
    }
    deleteTree(tmp.resolve("lost"));
  }

  @AfterAll
  void stopS3() throws IOException {
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void restoresFromS3OntoTheOldPorts() throws Exception {
    Path root = tmp.resolve("from-s3");
    for (RaftPeerId peer : oldPorts.keySet()) {
      Cli.Result r = Cli.run("restore", "--store", s3Uri, "--endpoint", s3.endpoint().toString(), "--path-style",
          "--cluster", CLUSTER, "--data-dir", root.resolve(peer.toString()).toString());
      assertEquals(0, r.code(), r.toString());
    }
    startAndCheck(root, oldPorts);
  }

  @Test
  void restoresFromS3OntoNewPortsWithPeers() throws Exception {
    Path root = tmp.resolve("moved");
    List<Integer> free = FreePorts.distinct(oldPorts.size());
    Map<RaftPeerId, Integer> newPorts = new LinkedHashMap<>();
    List<String> peers = new ArrayList<>();
    int i = 0;
    for (RaftPeerId peer : oldPorts.keySet()) {
      newPorts.put(peer, free.get(i++));
      peers.add(peer + "=127.0.0.1:" + newPorts.get(peer));
    }
    for (RaftPeerId peer : oldPorts.keySet()) {
      Cli.Result r = Cli.run("restore", "--store", s3Uri, "--endpoint", s3.endpoint().toString(), "--path-style",
          "--cluster", CLUSTER, "--peers", String.join(",", peers),
          "--data-dir", root.resolve(peer.toString()).toString());
      assertEquals(0, r.code(), r.toString());
    }
    startAndCheck(root, newPorts);
  }

  @Test
  void restoresFromTheDirectoryStore() throws Exception {
    Path root = tmp.resolve("from-directory");
    for (RaftPeerId peer : oldPorts.keySet()) {
      Cli.Result r = Cli.run("restore", "--store", directoryStore.toUri().toString(), "--cluster", CLUSTER,
          "--data-dir", root.resolve(peer.toString()).toString());
      assertEquals(0, r.code(), r.toString());
    }
    startAndCheck(root, oldPorts);
  }

  /** Starts the restored cluster with RECOVER and checks that it serves every key and takes writes. */
  private void startAndCheck(Path root, Map<RaftPeerId, Integer> ports) throws Exception {
    RaftGroupId multiFile = groupIds.get(2);
    try (RatisCluster cluster = RatisCluster.builder(root)
        .existingStorage()
        .ports(ports)
        .stateMachines(g -> g.equals(multiFile) ? new FileListKvStateMachine() : new KvStateMachine())
        .build()
        .start()) {
      assertEquals(groupIds.stream().sorted(Comparator.comparing(RaftGroupId::getUuid)).toList(),
          cluster.groupIds().stream().sorted(Comparator.comparing(RaftGroupId::getUuid)).toList());
      cluster.awaitLeaders(LEADERS);
      // Groups are independent: check them side by side.
      List<CompletableFuture<Void>> checks = new ArrayList<>();
      for (RaftGroupId group : groupIds) {
        checks.add(CompletableFuture.runAsync(() -> {
          try {
            SortedMap<String, String> expected = written.get(group);
            assertEquals(expected, cluster.readKeys(group, expected.keySet()), "every key of " + group);
            SortedMap<String, String> more = cluster.writeKeys(group, 50, "after-");
            assertEquals(more, cluster.readKeys(group, more.keySet()), "new writes to " + group);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }));
      }
      for (CompletableFuture<Void> check : checks) {
        try {
          check.get(5, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
          if (e.getCause() instanceof Error error) {
            throw error; // an assertion of the check
          }
          throw e;
        }
      }
    }
  }

  private ObjectStore openS3() {
    return new S3ObjectStore(StoreUri.parse(s3Uri), S3Settings.builder()
        .endpoint(s3.endpoint()).pathStyle(true).region(s3.region())
        .credentials(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
        .build());
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
