package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ratisoffload.restore.Generations;
import dev.ratisoffload.store.DirectoryObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Any damage to any stored object, chunk or manifest, makes {@code verify} and {@code restore} exit 3,
 * and the restore target holds no group directory afterwards.
 */
class DamagedStorePropertiesTest {

  static final String CLUSTER = "prod-1";
  static final String G1 = "11111111-1111-4111-8111-111111111111";
  static final String G2 = "22222222-2222-4222-8222-222222222222";

  enum Damage { FLIP, TRUNCATE, EXTEND, DELETE, SWAP }

  static Path root;
  static Path pristine;
  static List<String> objects;

  @BeforeContainer
  static void publish() throws IOException {
    // A thousand small restores force files to disk; memory-backed storage keeps that quick.
    Path shm = Path.of("/dev/shm");
    root = Files.isDirectory(shm) && Files.isWritable(shm)
        ? Files.createTempDirectory(shm, "damaged-store") : Files.createTempDirectory("damaged-store");
    pristine = Files.createDirectories(root.resolve("pristine"));
    DirectoryObjectStore store = new DirectoryObjectStore(pristine);
    Path scratch = Files.createDirectories(root.resolve("scratch"));
    Instant t0 = Instant.parse("2026-05-01T00:00:00Z");
    Map<String, byte[]> files = new LinkedHashMap<>();
    files.put("sm/snapshot.3_120", Generations.random(6_000, 11));
    files.put("sm/extra/index.bin", Generations.random(2_500, 12));
    Generations.publish(store, scratch, new Generations.Snapshot(CLUSTER, G1, 3, 120, 4, t0, files));
    Generations.publish(store, scratch, Generations.snapshot(CLUSTER, G2, 1, 30, t0, 3_000, 13));
    try (Stream<Path> paths = Files.walk(pristine)) {
      objects = paths.filter(Files::isRegularFile).map(p -> pristine.relativize(p).toString()).sorted().toList();
    }
  }

  @AfterContainer
  static void cleanUp() throws IOException {
    deleteTree(root);
  }

  @Property(tries = 1000)
  void anyDamageExits3AndRestoresNothing(@ForAll Damage damage,
      @ForAll @IntRange(min = 0, max = 10_000) int objectChoice,
      @ForAll @IntRange(min = 0, max = 10_000) int otherChoice,
      @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int position,
      @ForAll @IntRange(min = 1, max = 255) int mask,
      @ForAll @Size(min = 1, max = 16) byte[] tail) throws IOException {
    Path store = Files.createTempDirectory(root, "try");
    try {
      copy(pristine, store);
      int n = objects.size();
      String object = objects.get(objectChoice % n);
      String other = objects.get((objectChoice % n + 1 + otherChoice % (n - 1)) % n); // never the same
      apply(damage, store.resolve(object), store.resolve(other), position, (byte) mask, tail);
      String uri = store.toUri().toString();

      Cli.Result verify = Cli.run("verify", "--store", uri, "--cluster", CLUSTER, "--group", G1, "--group", G2);
      assertEquals(3, verify.code(), damage + " of " + object + "\n" + verify);

      Path data = store.resolve("data");
      Cli.Result restore = Cli.run("restore", "--store", uri, "--cluster", CLUSTER, "--group", G1 + "," + G2,
          "--data-dir", data.toString());
      assertEquals(3, restore.code(), damage + " of " + object + "\n" + restore);
      assertEquals(List.of(), visibleEntries(data), "no group directory after " + damage + " of " + object);
    } finally {
      deleteTree(store);
    }
  }

  static void apply(Damage damage, Path object, Path other, int position, byte mask, byte[] tail)
      throws IOException {
    byte[] bytes = Files.readAllBytes(object);
    switch (damage) {
      case FLIP -> {
        bytes[position % bytes.length] ^= mask;
        Files.write(object, bytes);
      }
      case TRUNCATE -> Files.write(object, Arrays.copyOf(bytes, position % bytes.length));
      case EXTEND -> {
        byte[] longer = Arrays.copyOf(bytes, bytes.length + tail.length);
        System.arraycopy(tail, 0, longer, bytes.length, tail.length);
        Files.write(object, longer);
      }
      case DELETE -> Files.delete(object);
      case SWAP -> {
        byte[] otherBytes = Files.readAllBytes(other);
        Files.write(object, otherBytes);
        Files.write(other, bytes);
      }
    }
  }

  /** What a Ratis server would find: anything but the tool's own hidden files. */
  static List<String> visibleEntries(Path data) throws IOException {
    if (!Files.exists(data)) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(data)) {
      return entries.map(p -> p.getFileName().toString())
          .filter(name -> !name.equals(".offload-restore.lock"))
          .toList();
    }
  }

  static void copy(Path from, Path to) throws IOException {
    for (String object : objects) {
      Path target = to.resolve(object);
      Files.createDirectories(target.getParent());
      Files.copy(from.resolve(object), target);
    }
  }

  static void deleteTree(Path path) throws IOException {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(path)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
