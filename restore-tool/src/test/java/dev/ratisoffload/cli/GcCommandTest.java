package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratisoffload.activity.GroupActivity;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.primitives.Printable;
import dev.ratisoffload.restore.Generations;
import dev.ratisoffload.retention.RetentionPolicy;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.S3ObjectStore;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreUri;
import dev.ratisoffload.testkit.EmbeddedS3;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** {@code offload gc} through the real command line, against a directory store. */
class GcCommandTest {

  static final String CLUSTER = "prod-1";
  static final String GROUP = "44444444-4444-4444-8444-444444444444";
  static final Instant T0 = Instant.parse("2026-05-01T00:00:00Z");

  @TempDir
  Path tmp;

  private DirectoryObjectStore store;
  private String uri;

  @BeforeEach
  void publishFiveGenerations() throws IOException {
    store = new DirectoryObjectStore(Files.createDirectories(tmp.resolve("store")));
    uri = store.root().toUri().toString();
    Path scratch = Files.createDirectories(tmp.resolve("scratch"));
    for (int i = 1; i <= 5; i++) {
      Generations.publish(store, scratch,
          Generations.snapshot(CLUSTER, GROUP, 1, i * 100L, T0.plusSeconds(i * 3600L), 4_000, i));
    }
    // Retention deletes nothing of a group none of whose generations passed a verification.
    Cli.Result verified = Cli.run("verify", "--store", uri, "--cluster", CLUSTER, "--all", "--record");
    assertEquals(0, verified.code(), verified.toString());
  }

  @Test
  void aGroupWithoutAVerifiedGenerationHasNothingDeletedAndTheReportSaysWhatToDo() {
    store.list(Layout.VERIFICATIONS).forEach(o -> store.delete(o.key()));
    List<String> before = keys();
    Cli.Result r = Cli.run("gc", "--store", uri, "--cluster", CLUSTER, "--keep-last", "1", "--apply");
    assertEquals(0, r.code(), r.toString());
    assertEquals(before, keys(), "nothing deleted");
    assertTrue(r.out().contains("no generation has a passing verification")
        && r.out().contains("offload verify --group " + GROUP + " --all --record"), r.toString());
    assertEquals(0, Cli.run("verify", "--store", uri, "--cluster", CLUSTER, "--record").code());
    Cli.Result after = Cli.run("gc", "--store", uri, "--cluster", CLUSTER, "--keep-last", "1", "--apply");
    assertEquals(1, store.list(Layout.manifestPrefix(CLUSTER, GROUP)).size(), after.toString());
  }

  private List<String> keys() {
    return store.list("").stream().map(ObjectInfo::key).toList();
  }

  @Test
  void withoutApplyItPrintsThePlanAndChangesNothing() {
    List<String> before = keys();
    Cli.Result r = Cli.run("gc", "--store", uri, "--cluster", CLUSTER, "--keep-last", "2");
    assertEquals(0, r.code(), r.toString());
    assertTrue(r.out().contains("last 2"), r.toString());
    assertTrue(r.out().contains("delete"), r.toString());
    assertTrue(r.out().contains("Nothing was changed"), r.toString());
    assertEquals(before, keys(), "the listing before and after is identical");
  }

  @Test
  void withApplyItDeletesWhatThePlanSaidAndTheRestVerifies() throws IOException {
    Cli.Result r = Cli.run("gc", "--store", uri, "--cluster", CLUSTER, "--keep-last", "2", "--apply",
        "--json");
    assertEquals(0, r.code(), r.toString());
    JsonNode group = new ObjectMapper().readTree(r.out()).get("groups").get(0);
    assertEquals(2, group.get("kept").size());
    assertEquals(3, group.get("expired").size());
    assertTrue(group.get("chunksDeleted").asInt() > 0, r.out());
    assertEquals(2, store.list(Layout.manifestPrefix(CLUSTER, GROUP)).size());
    Cli.Result verify = Cli.run("verify", "--store", uri, "--cluster", CLUSTER, "--all");
    assertEquals(0, verify.code(), verify.toString());
  }

  @Test
  void aMalformedManifestStopsTheGroupWithExit3AndLeavesEverything() throws IOException {
    String victim = store.list(Layout.manifestPrefix(CLUSTER, GROUP)).get(1).key();
    Files.writeString(store.root().resolve(victim), "garbage");
    List<String> before = keys();
    Cli.Result r = Cli.run("gc", "--store", uri, "--cluster", CLUSTER, "--keep-last", "1", "--apply");
    assertEquals(3, r.code(), r.toString());
    assertTrue(r.err().contains(victim), r.toString());
    assertTrue(r.err().contains("everything else of the group was left"), r.toString());
    assertEquals(before, keys(), "nothing was deleted");
  }

  @Test
  void aPublishInProgressKeepsTheChunksAndSaysSo() {
    GroupActivity.Claim intent = new GroupActivity(store, RetentionPolicy.DEFAULT_CHUNK_GRACE)
        .announcePublish(CLUSTER, GROUP, "a publish", () -> false).orElseThrow();
    List<String> chunks = store.list(Layout.chunkPrefix(CLUSTER, GROUP)).stream().map(ObjectInfo::key).toList();
    Cli.Result r = Cli.run("gc", "--store", uri, "--cluster", CLUSTER, "--keep-last", "2", "--apply");
    assertEquals(0, r.code(), "not an error: " + r);
    assertTrue(r.out().contains("group " + GROUP + ": deleted 0 unreferenced chunk(s)"), r.toString());
    assertTrue(r.out().contains("; chunks kept: a publish of the group is in progress (intent " + intent.key()
        + " written "), r.toString());
    assertEquals(2, store.list(Layout.manifestPrefix(CLUSTER, GROUP)).size(), "manifests still expire");
    assertEquals(chunks, store.list(Layout.chunkPrefix(CLUSTER, GROUP)).stream().map(ObjectInfo::key).toList());
    intent.close();
    Cli.Result next = Cli.run("gc", "--store", uri, "--cluster", CLUSTER, "--keep-last", "2", "--apply");
    assertTrue(store.list(Layout.chunkPrefix(CLUSTER, GROUP)).size() < chunks.size(), "the next run collects: " + next);
    assertTrue(store.list(Layout.activityPrefix(CLUSTER, GROUP)).isEmpty());
  }

  /** An intent's key comes from a store listing: on S3 it may hold anything, escape sequences included. */
  @Test
  void aPlantedIntentKeyIsPrintedEscaped() throws Exception {
    String planted = Layout.activityPrefix(CLUSTER, GROUP) + Layout.PUBLISH_INTENT + "x\u009b2J\u009b31m";
    try (EmbeddedS3 s3 = EmbeddedS3.start();
        S3Client raw = S3Client.builder().endpointOverride(s3.endpoint()).forcePathStyle(true)
            .region(Region.of(s3.region())).credentialsProvider(StaticCredentialsProvider.create(
                AwsBasicCredentials.create(s3.accessKey(), s3.secretKey()))).build()) {
      s3.createBucket("backups");
      Path scratch = Files.createDirectories(tmp.resolve("scratch-s3"));
      try (S3ObjectStore onS3 = new S3ObjectStore(StoreUri.parse("s3://backups/gc"), S3Settings.builder()
          .endpoint(s3.endpoint()).pathStyle(true).region(s3.region())
          .credentials(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
          .build())) {
        for (int i = 1; i <= 2; i++) {
          Generations.publish(onS3, scratch,
              Generations.snapshot(CLUSTER, GROUP, 1, i * 100L, T0.plusSeconds(i * 3600L), 4_000, i));
        }
      }
      raw.putObject(b -> b.bucket("backups").key("gc/" + planted), RequestBody.fromString("hostile"));
      System.setProperty("aws.accessKeyId", s3.accessKey());
      System.setProperty("aws.secretAccessKey", s3.secretKey());
      try {
        String[] store = {"--store", "s3://backups/gc", "--endpoint", s3.endpoint().toString(), "--path-style",
            "--region", s3.region(), "--cluster", CLUSTER};
        Cli.Result verified = Cli.run(concat(store, "verify", "--all", "--record"));
        assertEquals(0, verified.code(), verified.toString());
        Cli.Result r = Cli.run(concat(store, "gc", "--keep-last", "1", "--apply"));
        assertEquals(0, r.code(), r.toString());
        assertTrue(r.out().contains("; chunks kept: a publish of the group is in progress (intent "
            + Printable.of(planted) + " written "), r.toString());
        assertTrue(r.out().chars().noneMatch(c -> c == 0x9b), "no raw escape: " + r);
      } finally {
        System.clearProperty("aws.accessKeyId");
        System.clearProperty("aws.secretAccessKey");
      }
    }
  }

  private static String[] concat(String[] store, String... command) {
    return java.util.stream.Stream.concat(java.util.Arrays.stream(command), java.util.Arrays.stream(store))
        .toArray(String[]::new);
  }

  @Test
  void aChunkGraceBelowTheSafeMinimumIsRefusedAsThePluginRefusesIt() {
    List<String> before = keys();
    Cli.Result r = Cli.run("gc", "--store", uri, "--cluster", CLUSTER, "--keep-last", "1", "--chunk-grace", "30s",
        "--apply");
    assertEquals(2, r.code(), r.toString());
    String message = assertThrows(IllegalArgumentException.class,
        () -> RetentionPolicy.requireSafeChunkGrace("--chunk-grace", "30s", Duration.ofSeconds(30))).getMessage();
    assertTrue(r.err().contains(message), r.toString());
    assertTrue(message.contains("invalid --chunk-grace = '30s': the chunk grace must be at least 1min"), message);
    assertEquals(before, keys(), "nothing was deleted");
    assertEquals(0, Cli.run("gc", "--store", uri, "--cluster", CLUSTER, "--keep-last", "1", "--chunk-grace", "1min")
        .code());
  }

  @Test
  void aRuleIsRequired() {
    Cli.Result r = Cli.run("gc", "--store", uri, "--cluster", CLUSTER);
    assertEquals(2, r.code(), r.toString());
    assertTrue(r.err().contains("at least one rule"), r.toString());
    Cli.Result noCluster = Cli.run("gc", "--store", uri, "--keep-last", "1");
    assertEquals(2, noCluster.code(), noCluster.toString());
  }
}
