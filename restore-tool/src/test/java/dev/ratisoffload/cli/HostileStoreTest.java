package dev.ratisoffload.cli;

import static dev.ratisoffload.cli.OffloadCommandTest.assertOneErrorLine;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.format.ManifestCodec;
import dev.ratisoffload.restore.Generations;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.S3Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A store that an attacker or a broken tool wrote to, and configuration mistakes, through the real
 * command line: nothing reaches the terminal raw, what verify passes restore can write, nothing is
 * written through a planted link, and a mistake is a usage error that never echoes a secret.
 */
class HostileStoreTest {

  static final String CLUSTER = "prod-1";
  static final String GROUP = "55555555-5555-4555-8555-555555555555";
  static final String OTHER_GROUP = "66666666-6666-4666-8666-666666666666";
  /** What a terminal may be sent: printable ASCII and line breaks. */
  static final Pattern TERMINAL_SAFE = Pattern.compile("[\\x20-\\x7e\n]*");
  /** Clears the screen, sets the window title and rings the bell; written as JSON escapes. */
  static final String ESCAPES_AS_JSON = "\\u001b[2J\\u001b]0;owned\\u0007\\u009b31m";

  @TempDir
  Path tmp;

  private Path storeDir;
  private DirectoryObjectStore store;

  private String storeUri() throws Exception {
    if (store == null) {
      storeDir = Files.createDirectories(tmp.resolve("store"));
      store = new DirectoryObjectStore(storeDir);
    }
    return storeDir.toUri().toString();
  }

  private void put(Manifest manifest, byte[] object) {
    store.putIfAbsent(Layout.GenerationId.of(manifest).manifestKey(), Content.of(object));
  }

  private Manifest chunks(String group, String publisher, Map<String, List<byte[]>> files) {
    return Generations.putChunks(store, CLUSTER, group, publisher, files);
  }

  private static Map<String, List<byte[]>> files(String... paths) {
    Map<String, List<byte[]>> files = new LinkedHashMap<>();
    for (int i = 0; i < paths.length; i++) {
      files.put(paths[i], List.of(Generations.random(100, i)));
    }
    return files;
  }

  @Test
  void textFromTheStoreReachesTheTerminalEscaped() throws Exception {
    String uri = storeUri();
    Manifest published = chunks(GROUP, "publisherxx", files("sm/snapshot.1_5"));
    put(published, Generations.forge(published, "publisherxx", "n0" + ESCAPES_AS_JSON));
    Manifest pathed = chunks(OTHER_GROUP, "n0", files("sm/snapshot.1_5"));
    put(pathed, Generations.forge(pathed, "sm/snapshot.1_5", "sm/snap" + ESCAPES_AS_JSON));

    for (List<String> command : List.of(List.of("list"), List.of("list", "--json"), List.of("verify"),
        List.of("verify", "--json"), List.of("status"), List.of("status", "--json"),
        List.of("restore", "--data-dir", tmp.resolve("data").toString()))) {
      List<String> args = new java.util.ArrayList<>(command);
      args.addAll(List.of("--store", uri, "--cluster", CLUSTER));
      Cli.Result r = Cli.run(args.toArray(String[]::new));
      assertTrue(TERMINAL_SAFE.matcher(r.out()).matches() && TERMINAL_SAFE.matcher(r.err()).matches(),
          "offload " + command + " wrote a control character:\n" + r.toString().replace("\u001b", "<ESC>"));
      assertTrue((r.out() + r.err()).contains("\\u001b[2J"), "shown escaped: " + r);
      if (command.contains("--json")) {
        new ObjectMapper().readTree(r.out()); // still one JSON document
      }
    }
  }

  /** Names a restore cannot create: verify, which reads every byte, must fail them just as restore does. */
  @ParameterizedTest
  @ValueSource(strings = {"long-sidecar", "file-inside-a-sidecar"})
  void whatVerifyPassesRestoreCanWrite(String defect) throws Exception {
    String uri = storeUri();
    String named;
    if (defect.equals("long-sidecar")) {
      String fits = "sm/" + "s".repeat(251); // with ".md5", 255 bytes: the longest a file system takes
      Manifest m = chunks(GROUP, "n0", files(fits));
      named = fits + "s";
      put(m, Generations.forge(m, fits, named));
    } else {
      Manifest m = chunks(GROUP, "n0", files("sm/a", "sm/a.mdx/b"));
      named = "sm/a.md5/b";
      put(m, Generations.forge(m, "sm/a.mdx/b", named));
    }
    Cli.Result verify = Cli.run("verify", "--store", uri, "--cluster", CLUSTER);
    assertEquals(3, verify.code(), verify.toString());
    assertTrue(verify.err().contains(named), verify.toString());

    Path data = tmp.resolve("data");
    Cli.Result restore = Cli.run("restore", "--store", uri, "--cluster", CLUSTER, "--data-dir", data.toString());
    assertEquals(3, restore.code(), restore.toString());
    assertTrue(restore.err().contains(named), restore.toString());
    assertOneErrorLine(restore);
    assertFalse(Files.exists(data.resolve(GROUP)));
  }

  @ParameterizedTest
  @ValueSource(strings = {".offload-restore.lock", ".offload-restore.cluster"})
  void aMarkerPlantedAsALinkIsRefusedAndNothingIsWrittenOutside(String marker) throws Exception {
    String uri = storeUri();
    Manifest m = chunks(GROUP, "n0", files("sm/snapshot.1_5"));
    put(m, ManifestCodec.encode(m));
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Path existing = Files.writeString(outside.resolve("owned"), "cluster=" + CLUSTER + "\n");
    Path data = Files.createDirectories(tmp.resolve("data"));
    for (Path target : List.of(outside.resolve("created-by-restore"), existing)) {
      Files.deleteIfExists(data.resolve(marker));
      Files.createSymbolicLink(data.resolve(marker), target);

      Cli.Result r = Cli.run("restore", "--store", uri, "--cluster", CLUSTER, "--data-dir", data.toString());
      assertEquals(5, r.code(), r.toString());
      assertTrue(r.err().contains(marker) && r.err().contains("symbolic link"), r.toString());
      assertOneErrorLine(r);
      assertFalse(Files.exists(outside.resolve("created-by-restore")), "nothing was created through the link");
      assertEquals("cluster=" + CLUSTER + "\n", Files.readString(existing));
      assertFalse(Files.exists(data.resolve(GROUP)));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"--endpoint=ftp://127.0.0.1:1", "--endpoint=http://[bad", "--endpoint=127.0.0.1:9000",
      "--region=us east 1", "--region=us-east-1/s3", "--region=\u001b[2J"})
  void aConfigurationMistakeIsAUsageError(String flag) {
    Cli.Result r = Cli.run("list", "--store", "s3://backups/ratis", flag, "--path-style", "--cluster", CLUSTER);
    assertEquals(2, r.code(), r.toString());
    assertOneErrorLine(r);
    String value = flag.substring(flag.indexOf('=') + 1);
    String rule = flag.startsWith("--endpoint") ? message(() -> S3Settings.parseEndpoint(value))
        : message(() -> S3Settings.requireRegion(value));
    assertTrue(r.err().contains(rule), "the plugin's message for the same value: " + rule + "\n" + r);
  }

  @ParameterizedTest
  @ValueSource(strings = {"--store=s3://AKIAHOSTILEKEY:hostile-secret@backups/ratis",
      "--endpoint=http://AKIAHOSTILEKEY:hostile-secret@127.0.0.1:9000"})
  void credentialsInAUriAreRefusedAndNeverEchoed(String flag) {
    List<String> args = new java.util.ArrayList<>(List.of("list", "--path-style", "--cluster", CLUSTER, flag));
    if (!flag.startsWith("--store")) {
      args.add("--store=s3://backups/ratis");
    }
    Cli.Result r = Cli.run(args.toArray(String[]::new));
    assertEquals(2, r.code(), r.toString());
    assertOneErrorLine(r);
    assertFalse(r.err().contains("hostile-secret") || r.err().contains("AKIAHOSTILEKEY"), r.toString());
    assertTrue(r.err().contains("profile"), "says where credentials go: " + r);
  }

  /** The heap is too small for even one read of the generation's largest chunk (32 MiB). */
  @Test
  void aHeapTooSmallForTheChunksIsAUsageErrorNamingTheHeapToGive() throws Exception {
    String uri = storeUri();
    Manifest m = chunks(GROUP, "n0", Map.of("sm/snapshot.1_5", List.of(new byte[32 * 1024 * 1024])));
    put(m, ManifestCodec.encode(m));
    Path data = tmp.resolve("data");

    Cli.Result r = ChildCli.run(List.of("-Xmx128m"), Map.of(), tmp, "restore", "--store", uri, "--cluster", CLUSTER,
        "--data-dir", data.toString());
    assertEquals(2, r.code(), r.toString());
    assertOneErrorLine(r);
    assertTrue(r.err().contains("OFFLOAD_JAVA_OPTS=-Xmx") && r.err().contains("32 MiB"), r.toString());
    assertFalse(Files.exists(data), "nothing was written");
  }

  /** A heap that holds fewer chunks than a full-speed restore keeps in flight: fewer reads, same bytes. */
  @Test
  void aSmallHeapRestoresWithFewerReadsInFlight() throws Exception {
    String uri = storeUri();
    List<byte[]> chunks = new java.util.ArrayList<>();
    for (int i = 0; i < 6; i++) {
      chunks.add(Generations.random(8 * 1024 * 1024, i));
    }
    Manifest m = chunks(GROUP, "n0", Map.of("sm/snapshot.1_5", chunks));
    put(m, ManifestCodec.encode(m));
    Path data = tmp.resolve("data");

    Cli.Result r = ChildCli.run(List.of("-Xmx128m"), Map.of(), tmp, "restore", "--store", uri, "--cluster", CLUSTER,
        "--data-dir", data.toString());
    assertEquals(0, r.code(), r.toString());
    byte[] restored = Files.readAllBytes(data.resolve(GROUP).resolve("sm/snapshot.1_5"));
    for (int i = 0; i < chunks.size(); i++) {
      assertTrue(java.util.Arrays.equals(chunks.get(i), 0, chunks.get(i).length, restored,
          i * chunks.get(i).length, (i + 1) * chunks.get(i).length), "chunk " + i);
    }
  }

  private static String message(Runnable rule) {
    try {
      rule.run();
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    throw new AssertionError("the rule accepted it");
  }
}
