package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.restore.Generations;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.testkit.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restore killed with SIGKILL part-way leaves no group directory, and the next restore succeeds. The
 * tool runs as a child JVM; one chunk of the second group is a named pipe, so the child blocks reading
 * it after the first group is staged and the second begun: a deterministic point to kill.
 */
class KilledRestoreTest {

  static final String CLUSTER = "prod-1";
  static final String G1 = "11111111-1111-4111-8111-111111111111";
  static final String G2 = "22222222-2222-4222-8222-222222222222";

  @TempDir
  Path tmp;

  @Test
  void aKilledRestoreLeavesNoGroupDirectoryAndTheNextOneSucceeds() throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/mkfifo")) || Files.isExecutable(Path.of("/bin/mkfifo")),
        "needs mkfifo");
    Path storeDir = Files.createDirectories(tmp.resolve("store"));
    DirectoryObjectStore store = new DirectoryObjectStore(storeDir);
    Path scratch = Files.createDirectories(tmp.resolve("scratch"));
    Instant t0 = Instant.parse("2026-05-01T00:00:00Z");
    Generations.publish(store, scratch, Generations.snapshot(CLUSTER, G1, 2, 500, t0, 30_000, 1));
    Generations.publish(store, scratch, Generations.snapshot(CLUSTER, G2, 3, 700, t0, 30_000, 2));

    GenerationReader reader = new GenerationReader(store);
    Manifest g2 = reader.readManifest(reader.newest(CLUSTER, G2).orElseThrow().id());
    List<Manifest.ChunkRef> chunks = g2.files().get(0).chunks();
    assertTrue(chunks.size() > 3, "the file spans several chunks");
    Manifest.ChunkRef blocking = chunks.get(2);
    Path chunkFile = storeDir.resolve(Layout.chunkKey(CLUSTER, G2, blocking.sha256()));
    byte[] chunkBytes = Files.readAllBytes(chunkFile);
    Files.delete(chunkFile);
    mkfifo(chunkFile);

    Path data = tmp.resolve("data");
    Process child = new ProcessBuilder(ChildCli.javaExecutable(), "-cp", System.getProperty("java.class.path"),
        OffloadCommand.class.getName(), "restore", "--store", storeDir.toUri().toString(),
        "--cluster", CLUSTER, "--data-dir", data.toString())
        .redirectErrorStream(true)
        .redirectOutput(tmp.resolve("child.log").toFile())
        .start();
    try {
      awaitStagedFile(data, G2, child);
    } finally {
      child.destroyForcibly(); // SIGKILL
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    }
    assertEquals(137, child.exitValue(), "killed by SIGKILL");

    assertFalse(Files.exists(data.resolve(G1)), "the first group was staged, never moved into place");
    assertFalse(Files.exists(data.resolve(G2)));
    assertEquals(2, staging(data).size(), "both groups' staging directories were left behind");

    Files.delete(chunkFile);
    Files.write(chunkFile, chunkBytes);
    Cli.Result again = Cli.run("restore", "--store", storeDir.toUri().toString(), "--cluster", CLUSTER,
        "--data-dir", data.toString());
    assertEquals(0, again.code(), again.toString());
    assertEquals(List.of(), staging(data), "the killed run's staging directories were removed");
    assertArrayEquals(Generations.random(30_000, 2), Files.readAllBytes(data.resolve(G2).resolve("sm/snapshot.3_700")));
    assertArrayEquals(Generations.random(30_000, 1), Files.readAllBytes(data.resolve(G1).resolve("sm/snapshot.2_500")));
  }

  /**
   * Waits until the child has created the group's snapshot file in staging: it is then copying that
   * group, blocked on the chunk it cannot read (what it wrote may still be in its write buffer).
   */
  private static void awaitStagedFile(Path data, String group, Process child) {
    Await.until("the restore to start writing group " + group + " and block", Duration.ofSeconds(60), () -> {
      if (!child.isAlive()) {
        throw new AssertionError("the restore ended before it could be killed: exit " + child.exitValue());
      }
      try {
        return staging(data).stream().anyMatch(staging -> staging.getFileName().toString().contains(group)
            && Files.exists(staging.resolve("sm/snapshot.3_700")));
      } catch (IOException e) {
        return false; // a staging directory vanished between listing and reading: look again
      }
    });
  }

  private static List<Path> staging(Path data) throws IOException {
    if (!Files.isDirectory(data)) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(data)) {
      return entries.filter(p -> p.getFileName().toString().startsWith(".offload-restore-")
          && Files.isDirectory(p)).toList();
    }
  }

  private static void mkfifo(Path path) throws Exception {
    Process mkfifo = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
    assertEquals(0, mkfifo.waitFor());
  }
}
