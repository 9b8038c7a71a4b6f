package dev.ratisoffload.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.store.ObjectStore.PutOutcome;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The behaviour every {@link ObjectStore} must have; each implementation's test extends this. */
abstract class ObjectStoreContract {

  /** The store under test; shared across the class, so each test works under its own prefix. */
  abstract ObjectStore store();

  private String base;

  @BeforeEach
  void freshPrefix() {
    base = "t-" + UUID.randomUUID() + "/";
  }

  String key(String name) {
    return base + name;
  }

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] read(InputStream in) throws IOException {
    try (in) {
      return in.readAllBytes();
    }
  }

  @Test
  void putThenGetHeadAndRange() throws IOException {
    assertEquals(PutOutcome.CREATED, store().putIfAbsent(key("a/b"), Content.of(bytes("hello world"))));
    assertArrayEquals(bytes("hello world"), read(store().get(key("a/b"))));
    assertArrayEquals(bytes("lo wo"), read(store().get(key("a/b"), 3, 5)));
    assertArrayEquals(bytes("world"), read(store().get(key("a/b"), 6, 100)));
    assertEquals(11, store().head(key("a/b")).orElseThrow().size());
    assertTrue(store().head(key("absent")).isEmpty());
  }

  @Test
  void emptyObjects() throws IOException {
    store().putIfAbsent(key("empty"), Content.of(new byte[0]));
    assertArrayEquals(new byte[0], read(store().get(key("empty"))));
    assertEquals(0, store().head(key("empty")).orElseThrow().size());
  }

  @Test
  void identicalRetryIsANoOpAndDifferentBytesAreRefused() throws IOException {
    store().putIfAbsent(key("x"), Content.of(bytes("one")));
    assertEquals(PutOutcome.ALREADY_PRESENT, store().putIfAbsent(key("x"), Content.of(bytes("one"))));
    ObjectConflictException conflict = assertThrows(ObjectConflictException.class,
        () -> store().putIfAbsent(key("x"), Content.of(bytes("two"))));
    assertTrue(conflict.getMessage().contains(key("x")), conflict.getMessage());
    assertThrows(ObjectConflictException.class,
        () -> store().putIfAbsent(key("x"), Content.of(bytes("one and more"))));
    assertArrayEquals(bytes("one"), read(store().get(key("x"))), "the stored object is untouched");
  }

  @Test
  void listReturnsKeysUnderAPrefixInOrder() {
    for (String name : List.of("b/2", "a/1", "b/1", "c", "bb/1")) {
      store().putIfAbsent(key(name), Content.of(bytes(name)));
    }
    assertEquals(List.of(key("b/1"), key("b/2")), keys(store().list(key("b/"))));
    assertEquals(List.of(key("b/1"), key("b/2"), key("bb/1")), keys(store().list(key("b"))));
    assertEquals(5, store().list(base).size());
    assertEquals(List.of(), store().list(key("none/")));
  }

  @Test
  void listPagesThroughManyObjects() {
    int count = 1100; // more than one S3 page of 1000
    byte[] one = bytes("1");
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      expected.add(key(String.format("many/%05d", i)));
    }
    expected.parallelStream().forEach(k -> store().putIfAbsent(k, Content.of(one)));
    assertEquals(expected, keys(store().list(key("many/"))));
    assertEquals(expected.subList(0, 1050), keys(store().list(key("many/"), "", 1050)), "bounded across a page");
    assertEquals(expected.subList(3, 5), keys(store().list(key("many/"), expected.get(2), 2)));
    assertThrows(IllegalArgumentException.class, () -> store().list(key("many/"), "", 0));
  }

  @Test
  void deleteIsIdempotent() {
    store().putIfAbsent(key("d"), Content.of(bytes("d")));
    store().delete(key("d"));
    store().delete(key("d"));
    assertTrue(store().head(key("d")).isEmpty());
    assertThrows(ObjectNotFoundException.class, () -> read(store().get(key("d"))));
  }

  @Test
  void largeObjectsRoundTrip() throws IOException {
    byte[] big = new byte[12 * 1024 * 1024 + 17];
    new Random(1).nextBytes(big);
    store().putIfAbsent(key("big"), Content.of(big));
    assertArrayEquals(big, read(store().get(key("big"))));
    assertEquals(PutOutcome.ALREADY_PRESENT, store().putIfAbsent(key("big"), Content.of(big)));
    byte[] other = big.clone();
    other[other.length - 1]++;
    assertThrows(ObjectConflictException.class, () -> store().putIfAbsent(key("big"), Content.of(other)));
  }

  @Test
  void invalidKeysAreRefused() {
    for (String bad : List.of("", "/abs", "a//b", "../x", "a/../b", ".hidden", "a/.tmp", "sp ace")) {
      assertThrows(IllegalArgumentException.class,
          () -> store().putIfAbsent(bad, Content.of(bytes("x"))), bad);
    }
  }

  static List<String> keys(List<ObjectInfo> objects) {
    return objects.stream().map(ObjectInfo::key).toList();
  }
}
