package dev.ratisoffload.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ratisoffload.testkit.EmbeddedS3;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Listing after a key returns exactly the sorted keys after it, in both stores: for keys spread over
 * directories whose names sort around '/' ('-' and '.' sort before it, letters after), and start keys
 * that are stored keys, directories, prefixes of keys or none of these.
 */
class ListStartAfterPropertiesTest {

  private static EmbeddedS3 s3;
  private static S3ObjectStore s3Store;
  private static final AtomicInteger TRIES = new AtomicInteger();

  @BeforeContainer
  static void startS3() throws IOException {
    s3 = EmbeddedS3.start();
    s3.createBucket("after");
    s3Store = new S3ObjectStore(StoreUri.parse("s3://after/root"),
        S3ObjectStoreTest.settings(s3, s3.secretKey()).build());
  }

  @AfterContainer
  static void stopS3() throws IOException {
    s3Store.close();
    s3.close();
  }

  @Property(tries = 200)
  void theDirectoryStoreListsExactlyTheKeysAfterTheStart(@ForAll("cases") Case c) throws IOException {
    Path dir = Files.createTempDirectory("list-after");
    try {
      assertListsAfter(new DirectoryObjectStore(dir), "k/", c);
    } finally {
      try (var files = Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Property(tries = 50)
  void theS3StoreListsExactlyTheKeysAfterTheStart(@ForAll("cases") Case c) {
    assertListsAfter(s3Store, "t" + TRIES.incrementAndGet() + "/", c);
  }

  /** Keys to store (relative to a base) and where to start listing (relative too; "" for all). */
  record Case(Set<String> names, String startAfter) {}

  private static void assertListsAfter(ObjectStore store, String base, Case c) {
    Set<String> names = c.names();
    String startAfter = c.startAfter();
    for (String name : names) {
      store.putIfAbsent(base + name, Content.of(new byte[] {1}));
    }
    String start = startAfter.isEmpty() ? "" : base + startAfter;
    List<String> expected = names.stream().map(n -> base + n).filter(k -> k.compareTo(start) > 0).sorted().toList();
    assertEquals(expected, store.list(base, start).stream().map(ObjectInfo::key).toList(), "after '" + start + "'");
    for (int maxKeys = 1; maxKeys <= 3; maxKeys++) { // a bounded listing is the same listing, cut short
      assertEquals(expected.subList(0, Math.min(maxKeys, expected.size())),
          store.list(base, start, maxKeys).stream().map(ObjectInfo::key).toList(), maxKeys + " after '" + start + "'");
    }
    // A narrower prefix combines with the start, and a start before the prefix lists all of it.
    List<String> underA = names.stream().map(n -> base + n).filter(k -> k.startsWith(base + "a")).sorted().toList();
    assertEquals(underA.stream().filter(k -> k.compareTo(start) > 0).toList(),
        store.list(base + "a", start).stream().map(ObjectInfo::key).toList());
    assertEquals(underA, store.list(base + "a", "a").stream().map(ObjectInfo::key).toList());
  }

  private static Arbitrary<String> segment() {
    return Arbitraries.strings().withChars("ab0-_=").ofMinLength(1).ofMaxLength(3)
        .flatMap(s -> Arbitraries.strings().withChars("ab.-").ofMaxLength(1).map(s::concat));
  }

  private static Arbitrary<String> name() {
    return segment().list().ofMinSize(1).ofMaxSize(3).map(parts -> String.join("/", parts));
  }

  /** Key sets a directory can hold (no key is also a directory of another), with a start among them or not. */
  @Provide
  Arbitrary<Case> cases() {
    Arbitrary<Set<String>> keySets = name().set().ofMinSize(1).ofMaxSize(14)
        .filter(set -> set.stream().noneMatch(k -> set.stream().anyMatch(o -> o.startsWith(k + "/"))));
    Arbitrary<String> other = Arbitraries.oneOf(name(), name().map(n -> n + "/"),
        Arbitraries.strings().withChars("ab0-_=/.").ofMaxLength(7));
    return keySets.flatMap(set -> {
      List<String> stored = List.copyOf(set);
      Arbitrary<String> storedKey = Arbitraries.of(stored);
      Arbitrary<String> storedDirectory = storedKey.map(k -> k.contains("/") ? k.substring(0, k.lastIndexOf('/')) : k);
      return Arbitraries.oneOf(storedKey, storedDirectory, other).map(start -> new Case(set, start));
    });
  }
}
