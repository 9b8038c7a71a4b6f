package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratisoffload.store.ConformanceProperty;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.OverwritingStore;
import dev.ratisoffload.testkit.EmbeddedS3;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/** {@code offload store check} through the real command line, against S3Proxy and directory stores. */
class StoreCheckCommandTest {

  private static EmbeddedS3 s3;

  @TempDir
  Path tmp;

  @BeforeAll
  static void startS3() throws IOException {
    s3 = EmbeddedS3.start();
    s3.createBucket("backups");
  }

  @AfterAll
  static void stopS3() throws IOException {
    s3.close();
  }

  /** Opens the store the flags describe, with S3Proxy's credentials. */
  private static final Function<StoreOptions, ObjectStore> WITH_S3_CREDENTIALS = options -> options.description()
      .withCredentials(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
      .open();

  private static Cli.Result checkS3(String... more) {
    String[] args = {"store", "check", "--store", "s3://backups/ratis", "--endpoint", s3.endpoint().toString(),
        "--path-style", "--region", EmbeddedS3.REGION};
    String[] all = java.util.stream.Stream.concat(java.util.Arrays.stream(args), java.util.Arrays.stream(more))
        .toArray(String[]::new);
    return Cli.run(WITH_S3_CREDENTIALS, all);
  }

  @Test
  void s3ProxyPassesEveryPropertyOneLineEach() {
    Cli.Result r = checkS3();
    assertEquals(0, r.code(), r.toString());
    for (ConformanceProperty property : ConformanceProperty.values()) {
      assertTrue(r.out().lines().anyMatch(l -> l.matches("(PASS|N/A) +" + property.id() + " .*")), property + ": " + r);
    }
    assertTrue(r.out().contains("has every property publishing relies on"), r.toString());
  }

  @Test
  void anEncryptionTheStoreRefusesIsAFailureAndExits3() {
    Cli.Result r = checkS3("--sse", "AES256");
    assertEquals(3, r.code(), r.toString());
    assertTrue(r.out().contains("FAIL  server-side-encryption") && r.out().contains("For backups:"), r.toString());
  }

  @Test
  void jsonListsEveryPropertyWithItsVerdict() throws IOException {
    Path store = Files.createDirectories(tmp.resolve("store"));
    Cli.Result r = Cli.run("store", "check", "--store", store.toUri().toString(), "--json");
    assertEquals(0, r.code(), r.toString());
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertTrue(json.get("conformant").asBoolean());
    assertEquals(ConformanceProperty.values().length, json.get("properties").size());
    assertEquals("PASS", json.get("properties").get(0).get("verdict").asText());
    assertEquals("N/A", json.get("properties").get(3).get("verdict").asText(), "checksum on a directory");
    try (var left = Files.list(store)) {
      assertEquals(0, left.count(), "the scratch prefix is removed");
    }
  }

  @Test
  void aStoreThatOverwritesFailsPutIfAbsentAndExits3() throws IOException {
    Path root = Files.createDirectories(tmp.resolve("overwriting"));
    Cli.Result r = Cli.run(options -> new OverwritingStore(new DirectoryObjectStore(root)),
        "store", "check", "--store", root.toUri().toString());
    assertEquals(3, r.code(), r.toString());
    assertTrue(r.out().contains("FAIL  put-if-absent") && r.out().contains("backups are not immutable")
        && r.out().contains("lacks put-if-absent"), r.toString());
  }

  @Test
  void anUnreachableStoreExits4AndBadFlagsExit2() {
    Cli.Result missing = Cli.run("store", "check", "--store", tmp.resolve("not-mounted").toUri().toString());
    assertEquals(4, missing.code(), missing.toString());
    assertFalse(missing.err().contains("\tat "), "no stack trace: " + missing);
    Cli.Result noStore = Cli.run("store", "check");
    assertEquals(2, noStore.code(), noStore.toString());
  }
}
