package dev.ratisoffload.refkv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class KvMapTest {

  private static SortedMap<String, byte[]> sample(int n) {
    final SortedMap<String, byte[]> entries = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      entries.put("key-" + i, ("value-" + i).getBytes(StandardCharsets.UTF_8));
    }
    return entries;
  }

  @Test
  void applyAndQueryFollowPutAndDelete() {
    final KvMap map = new KvMap();
    assertEquals(false, KvReply.parseFlag(map.apply(KvCommand.put("a", new byte[] {1}))));
    assertEquals(true, KvReply.parseFlag(map.apply(KvCommand.put("a", new byte[] {2}))));
    assertArrayEquals(new byte[] {2}, KvReply.parseValue(map.query(KvCommand.get("a"))).orElseThrow());
    assertEquals(1, KvReply.parseCount(map.query(KvCommand.count())));
    assertEquals(true, KvReply.parseFlag(map.apply(KvCommand.delete("a"))));
    assertEquals(false, KvReply.parseValue(map.query(KvCommand.get("a"))).isPresent());
    assertThrows(IllegalArgumentException.class, () -> map.apply(KvCommand.get("a")));
  }

  @Test
  void snapshotStreamRoundTrips() throws IOException {
    final SortedMap<String, byte[]> entries = sample(100);
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    KvMap.write(entries, out);
    final SortedMap<String, byte[]> back = KvMap.read(new ByteArrayInputStream(out.toByteArray()));
    assertEquals(entries.keySet(), back.keySet());
    entries.forEach((k, v) -> assertArrayEquals(v, back.get(k)));
  }

  @Test
  void truncatedOrForeignStreamsAreRejected() throws IOException {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    KvMap.write(sample(3), out);
    final byte[] bytes = out.toByteArray();
    assertThrows(IOException.class, () -> KvMap.read(new ByteArrayInputStream(Arrays.copyOf(bytes, bytes.length - 1))));
    final byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
    assertThrows(IOException.class, () -> KvMap.read(new ByteArrayInputStream(longer)));
    assertThrows(IOException.class, () -> KvMap.read(new ByteArrayInputStream("not a snapshot".getBytes(StandardCharsets.UTF_8))));
  }

  @Test
  void splitPutsEveryKeyInExactlyOneShard() {
    final SortedMap<String, byte[]> entries = sample(500);
    final List<SortedMap<String, byte[]>> shards = KvMap.split(entries, 4);
    assertEquals(4, shards.size());
    assertEquals(500, shards.stream().mapToInt(SortedMap::size).sum());
    shards.forEach(s -> assertTrue(s.size() > 50, "hash spreads keys over shards: " + s.size()));
    assertEquals(shards, KvMap.split(entries, 4), "the split is deterministic");
  }
}
