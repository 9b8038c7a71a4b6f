package dev.ratisoffload.format;

import dev.ratisoffload.primitives.Hashes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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

  /**
   * A chunker used for stream after stream, read in pieces of any size, cuts each exactly where the gear
   * hash over the whole stream says: its window, kept and grown between streams, never moves a boundary
   * (which would defeat de-duplication against earlier generations).
   */
  @Property(tries = 100)
  void aReusedChunkerCutsEveryStreamWhereTheWholeStreamSays(
      @ForAll @net.jqwik.api.constraints.Size(max = 6) List<@IntRange(max = 700_000) Integer> lengths,
      @ForAll boolean largeChunks, @ForAll long seed) throws IOException {
    // Large chunks: the window grows over several streams, from its first size to two maximal chunks.
    Chunker reused = new Chunker(largeChunks ? ChunkingPolicy.ofAverage(64 * 1024) : POLICY);
    Random random = new Random(seed);
    for (int length : lengths) {
      byte[] data = random(length, random.nextLong());
      List<Integer> expected = new ArrayList<>();
      for (int start = 0; start < data.length; ) {
        int chunk = reused.boundary(data, start, data.length - start);
        expected.add(chunk);
        start += chunk;
      }
      List<Integer> actual = new ArrayList<>();
      ByteArrayOutputStream joined = new ByteArrayOutputStream();
      reused.split(new TrickleInputStream(data, random.nextLong()), new Chunker.BufferSink() {
        @Override
        public byte[] buffer(int size) {
          return new byte[size + 3];
        }

        @Override
        public void accept(byte[] buffer, int size) {
          actual.add(size);
          joined.write(buffer, 0, size);
        }
      });
      assertEquals(expected, actual);
      assertArrayEquals(data, joined.toByteArray());
    }
  }

  /** Gives its bytes back a few at a time, as a socket or a budgeted stream may. */
  private static final class TrickleInputStream extends java.io.InputStream {
    private final ByteArrayInputStream bytes;
    private final Random random;

    TrickleInputStream(byte[] data, long seed) {
      this.bytes = new ByteArrayInputStream(data);
      this.random = new Random(seed);
    }

    @Override
    public int read() {
      return bytes.read();
    }

    @Override
    public int read(byte[] b, int off, int len) {
      return bytes.read(b, off, Math.min(len, 1 + random.nextInt(20_000)));
    }
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
