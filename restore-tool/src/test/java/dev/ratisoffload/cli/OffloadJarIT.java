package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratisoffload.restore.Generations;
import dev.ratisoffload.store.DirectoryObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The self-contained jar and {@code scripts/offload}, run as separate processes like an operator runs them. */
class OffloadJarIT {

  static final String G1 = "11111111-1111-4111-8111-111111111111";

  @TempDir
  Path tmp;

  record Run(int code, String out, String err) {}

  Run run(List<String> command) throws Exception {
    Path out = tmp.resolve("out-" + System.nanoTime());
    Path err = tmp.resolve("err-" + System.nanoTime());
    ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    // Credentials from the environment, the first place the SDK looks: it never probes further.
    builder.environment().put("AWS_ACCESS_KEY_ID", "test-access-key");
    builder.environment().put("AWS_SECRET_ACCESS_KEY", "test-secret-key");
    builder.environment().put("AWS_EC2_METADATA_DISABLED", "true");
    Process process = builder.start();
    assertTrue(process.waitFor(120, TimeUnit.SECONDS), "finished: " + command);
    return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
  }

  List<String> jar(String... args) {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-jar", System.getProperty("offload.jar")));
    command.addAll(List.of(args));
    return command;
  }

  @Test
  void theJarRestoresFromADirectoryStoreAndPrintsJson() throws Exception {
    Path store = Files.createDirectories(tmp.resolve("store"));
    Generations.publish(new DirectoryObjectStore(store), Files.createDirectories(tmp.resolve("scratch")),
        Generations.snapshot("prod-1", G1, 4, 900, Instant.parse("2026-05-01T00:00:00Z"), 50_000, 7));

    Run list = run(jar("list", "--store", store.toUri().toString(), "--json"));
    assertEquals(0, list.code(), list.toString());
    JsonNode listed = new ObjectMapper().readTree(list.out());
    assertEquals(900, listed.get(0).get("index").asLong());
    assertEquals("", list.err(), "quiet when piped: no progress, no logs");

    Path data = tmp.resolve("n1");
    Run restore = run(jar("restore", "--store", store.toUri().toString(), "--cluster", "prod-1",
        "--data-dir", data.toString()));
    assertEquals(0, restore.code(), restore.toString());
    assertEquals("", restore.err(), restore.toString());
    assertTrue(Files.isRegularFile(data.resolve(G1).resolve("sm/snapshot.4_900")));

    Run again = run(jar("restore", "--store", store.toUri().toString(), "--cluster", "prod-1",
        "--data-dir", data.toString()));
    assertEquals(5, again.code(), again.toString());
    assertEquals(1, again.err().lines().count(), again.toString());
  }

  @Test
  void theJarReachesS3ThroughTheSdkAndReportsAnUnreachableEndpoint() throws Exception {
    Run r = run(jar("status", "--store", "s3://backups/ratis", "--endpoint", "http://127.0.0.1:9",
        "--path-style", "--region", "us-east-1"));
    assertEquals(4, r.code(), r.toString());
    assertEquals(1, r.err().lines().count(), r.toString());
    assertTrue(r.err().contains("127.0.0.1:9"), r.toString());
    assertTrue(!r.err().contains("test-secret-key"), "never prints a secret");
  }

  @Test
  void theScriptRunsTheBuiltJar() throws Exception {
    Run r = run(List.of("bash", System.getProperty("offload.script"), "--version"));
    assertEquals(0, r.code(), r.toString());
    assertTrue(r.out().startsWith("offload "), r.toString());
    Run usage = run(List.of("bash", System.getProperty("offload.script"), "restore"));
    assertEquals(2, usage.code(), usage.toString());
  }
}
