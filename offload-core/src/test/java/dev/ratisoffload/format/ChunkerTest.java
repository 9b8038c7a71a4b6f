package dev.ratisoffload.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class ChunkerTest {

  private static final ChunkingPolicy POLICY = ChunkingPolicy.ofAverage(4096);

  @Property(tries = 200)
  void chunksConcatenateToTheInputWithinTheSizeBounds(@ForAll @IntRange(max = 100_000) int length,
      @ForAll long seed) throws IOException {
    byte[] data = random(length, seed);
    List<byte[]> chunks = split(data);
    ByteArrayOutputStream joined = new ByteArrayOutputStream();
    for (int i = 0; i < chunks.size(); i++) {
      byte[] chunk = chunks.get(i);
      assertTrue(chunk.length > 0 && chunk.length <= POLICY.max());
      if (i < chunks.size() - 1) {
        assertTrue(chunk.length >= POLICY.min(), "only the last chunk may be short");
      }
      joined.write(chunk);
    }
    assertArrayEquals(data, joined.toByteArray());
  }

  /** An insertion in the middle leaves most chunks unchanged: the point of content-defined chunks. */
  @Test
  void anInsertionChangesOnlyNearbyChunks() throws IOException {
    byte[] data = random(1_000_000, 7);
    byte[] edited = new byte[data.length + 100];
    System.arraycopy(data, 0, edited, 0, 500_000);
    System.arraycopy(random(100, 8), 0, edited, 500_000, 100);
    System.arraycopy(data, 500_000, edited, 500_100, 500_000);
    Set<String> before = hashes(split(data));
    List<byte[]> after = split(edited);
    long newBytes = after.stream().filter(c -> !before.contains(Hashes.sha256Hex(c)))
        .mapToLong(c -> c.length).sum();
    assertTrue(newBytes <= 4 * POLICY.max(), "new bytes after an insertion: " + newBytes);
  }

  private static List<byte[]> split(byte[] data) throws IOException {
    List<byte[]> chunks = new ArrayList<>();
    new Chunker(POLICY).split(new ByteArrayInputStream(data), chunks::add);
    return chunks;
  }

  private static Set<String> hashes(List<byte[]> chunks) {
    Set<String> set = new HashSet<>();
    chunks.forEach(c -> set.add(Hashes.sha256Hex(c)));
    return set;
  }

  private static byte[] random(int length, long seed) {
    byte[] data = new byte[length];
    new Random(seed).nextBytes(data);
    return data;
  }
}
