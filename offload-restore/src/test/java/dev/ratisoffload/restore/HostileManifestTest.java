package dev.ratisoffload.restore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.format.ManifestCodec;
import dev.ratisoffload.primitives.Hashes;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.IntegrityException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Whatever a manifest says, nothing is written outside the data directory. */
class HostileManifestTest {

  static final String CLUSTER = "prod-1";
  static final String GROUP = "44444444-4444-4444-8444-444444444444";

  @TempDir
  Path tmp;

  @Test
  void pathsLeavingTheGroupDirectoryAreRefused() {
    Path root = tmp.resolve("staging");
    for (String path : List.of("../escape", "sm/../../escape", "/etc/passwd", "sm//x", "./x", "sm/..",
        "current/raft-meta", "in_use.lock", "sm\\..\\x", "")) {
      assertThrows(IntegrityException.class, () -> SafePaths.resolveInside(root, path, "k"), path);
    }
    assertEquals(root.toAbsolutePath().resolve("sm/snapshot.1_2"), SafePaths.resolveInside(root, "sm/snapshot.1_2", "k"));
  }

  @Test
  void aManifestNamingAPathOutsideIsCorruptAndNothingIsWritten() throws Exception {
    Path storeDir = Files.createDirectories(tmp.resolve("store"));
    DirectoryObjectStore store = new DirectoryObjectStore(storeDir);
    byte[] content = "payload".getBytes(StandardCharsets.UTF_8);
    String sha = Hashes.sha256Hex(content);
    store.putIfAbsent(Layout.chunkKey(CLUSTER, GROUP, sha), Content.of(content));
    // Written by hand, hash and all, as an attacker with write access to the bucket could.
    String body = """
        {"format":1,"cluster":"%s","group":"%s","term":1,"index":5,
         "peers":[{"id":"n0","address":"127.0.0.1:1"}],"publisher":{"peer":"n0","leaderTerm":1},
         "createdAt":"2026-05-01T00:00:00Z","toolVersion":"x",
         "files":[{"path":"../../../escaped","size":%d,"sha256":"%s","md5":null,
                   "chunks":[{"sha256":"%s","size":%d}]}]}
        """.formatted(CLUSTER, GROUP, content.length, sha, sha, content.length);
    byte[] bodyBytes = body.getBytes(StandardCharsets.UTF_8);
    byte[] header = ("ratis-offload-manifest 1 sha256=" + Hashes.sha256Hex(bodyBytes) + "\n")
        .getBytes(StandardCharsets.US_ASCII);
    byte[] object = new byte[header.length + bodyBytes.length];
    System.arraycopy(header, 0, object, 0, header.length);
    System.arraycopy(bodyBytes, 0, object, header.length, bodyBytes.length);
    store.putIfAbsent(new Layout.GenerationId(CLUSTER, GROUP, 1, 5).manifestKey(), Content.of(object));

    Path dataDir = tmp.resolve("deep/data");
    ClusterRestorer restorer = new ClusterRestorer(store);
    IntegrityException e = assertThrows(IntegrityException.class, () -> restorer.restore(
        restorer.plan(new RestoreRequest(CLUSTER, List.of(), new GenerationChoice.Newest(), Map.of(), dataDir)),
        TransferListener.NONE));
    assertTrue(e.getMessage().contains("unsafe file path"), e.getMessage());
    try (Stream<Path> files = Files.walk(tmp)) {
      assertTrue(files.noneMatch(p -> p.getFileName().toString().equals("escaped")));
    }
    assertFalse(Files.exists(dataDir.resolve(GROUP)));
  }

  @Test
  void aFileWhereAnotherFilesMd5SidecarBelongsIsCorrupt() throws Exception {
    DirectoryObjectStore store = new DirectoryObjectStore(Files.createDirectories(tmp.resolve("store2")));
    byte[] a = "a".getBytes(StandardCharsets.UTF_8);
    byte[] b = "b".getBytes(StandardCharsets.UTF_8);
    for (byte[] bytes : List.of(a, b)) {
      store.putIfAbsent(Layout.chunkKey(CLUSTER, GROUP, Hashes.sha256Hex(bytes)), Content.of(bytes));
    }
    List<Manifest.FileEntry> clashing = List.of(entry("sm/snapshot.1_5", a, true), entry("sm/snapshot.1_5.md5", b, false));
    assertThrows(IllegalArgumentException.class, () -> ManifestCodec.encode(manifest(clashing)),
        "the publisher can never write such a manifest");
    // A forger who controls the whole object: the same manifest with a correct hash.
    byte[] forged = Generations.forge(
        manifest(List.of(entry("sm/snapshot.1_5", a, true), entry("sm/snapshot.1_5.mdx", b, false))),
        "snapshot.1_5.mdx", "snapshot.1_5.md5");
    store.putIfAbsent(Layout.GenerationId.of(manifest(clashing)).manifestKey(), Content.of(forged));

    IntegrityException e = assertThrows(IntegrityException.class, () -> new ClusterRestorer(store).plan(
        new RestoreRequest(CLUSTER, List.of(GROUP), new GenerationChoice.Newest(), Map.of(), tmp.resolve("d"))));
    assertTrue(e.getMessage().contains("MD5 sidecar"), e.getMessage());
  }

  /** A name whose MD5 sidecar ({@code + ".md5"}) takes exactly the 255 bytes a file system allows. */
  static final String LONGEST_WITH_SIDECAR = "sm/" + "s".repeat(251);

  @Test
  void aFileWhoseMd5SidecarNameIsTooLongIsCorrupt() {
    byte[] a = "a".getBytes(StandardCharsets.UTF_8);
    String tooLong = LONGEST_WITH_SIDECAR + "s";
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ManifestCodec.encode(manifest(List.of(entry(tooLong, a, true)))));
    assertTrue(e.getMessage().contains(tooLong) && e.getMessage().contains("255 bytes"), e.getMessage());
    // Without an MD5 there is no sidecar, and the name itself may take the 255 bytes.
    ManifestCodec.encode(manifest(List.of(entry("sm/" + "s".repeat(255), a, false))));
  }

  /** The rule is the file system's: the longest name it lets through is restored, sidecar and all. */
  @Test
  void theLongestNameWithASidecarIsRestored() throws Exception {
    DirectoryObjectStore store = new DirectoryObjectStore(Files.createDirectories(tmp.resolve("store3")));
    byte[] a = "a".getBytes(StandardCharsets.UTF_8);
    store.putIfAbsent(Layout.chunkKey(CLUSTER, GROUP, Hashes.sha256Hex(a)), Content.of(a));
    Manifest longest = manifest(List.of(entry(LONGEST_WITH_SIDECAR, a, true)));
    store.putIfAbsent(Layout.GenerationId.of(longest).manifestKey(), Content.of(ManifestCodec.encode(longest)));

    Path dataDir = tmp.resolve("d3");
    ClusterRestorer restorer = new ClusterRestorer(store);
    restorer.restore(restorer.plan(new RestoreRequest(CLUSTER, List.of(), new GenerationChoice.Newest(), Map.of(),
        dataDir)), TransferListener.NONE);
    assertTrue(Files.exists(dataDir.resolve(GROUP).resolve(LONGEST_WITH_SIDECAR + ".md5")));
  }

  @Test
  void aFileInsideAnotherFilesMd5SidecarIsCorrupt() {
    byte[] a = "a".getBytes(StandardCharsets.UTF_8);
    byte[] b = "b".getBytes(StandardCharsets.UTF_8);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ManifestCodec.encode(manifest(List.of(entry("sm/a", a, true), entry("sm/a.md5/b", b, false)))));
    assertTrue(e.getMessage().contains("the MD5 sidecar of sm/a") && e.getMessage().contains("sm/a.md5/b"),
        e.getMessage());
    // Without an MD5, sm/a has no sidecar and sm/a.md5 is free to be a directory.
    ManifestCodec.encode(manifest(List.of(entry("sm/a", a, false), entry("sm/a.md5/b", b, false))));
  }

  static Manifest manifest(List<Manifest.FileEntry> files) {
    return new Manifest(Manifest.FORMAT_VERSION, CLUSTER, GROUP, 1, 5,
        List.of(new Manifest.Peer("n0", "127.0.0.1:1")), new Manifest.Publisher("n0", 1),
        Instant.parse("2026-05-01T00:00:00Z"), "x", files);
  }

  static Manifest.FileEntry entry(String path, byte[] content, boolean md5) {
    String sha = Hashes.sha256Hex(content);
    return new Manifest.FileEntry(path, content.length, sha,
        md5 ? Hashes.hex(Hashes.md5().digest(content)) : null, List.of(new Manifest.ChunkRef(sha, content.length)));
  }
}
