package dev.ratisoffload.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ratisoffload.primitives.Hashes;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** A file's digests, taken in chunk after chunk on their own threads, are the digests of the whole file. */
class DigestLanesTest {

  @Property(tries = 40)
  void chunksAddedInOrderDigestToTheWholeFile(@ForAll("bytes") byte[] file, @ForAll("cuts") List<Integer> cuts)
      throws Exception {
    AtomicInteger taken = new AtomicInteger();
    int chunks = 0;
    try (DigestLanes lanes = new DigestLanes()) {
      DigestLanes.FileDigests digests = lanes.startFile();
      int offset = 0;
      for (int cut : cuts) {
        int end = Math.min(file.length, offset + cut);
        byte[] chunk = Arrays.copyOf(Arrays.copyOfRange(file, offset, end), end - offset + 7); // a larger array
        digests.add(chunk, end - offset, taken::incrementAndGet);
        chunks++;
        offset = end;
      }
      byte[] rest = Arrays.copyOfRange(file, offset, file.length);
      digests.add(rest, rest.length, taken::incrementAndGet);
      chunks++;
      digests.finish();
      assertEquals(Hashes.sha256Hex(file), digests.sha256().get());
      assertEquals(Hashes.hex(Hashes.md5().digest(file)), digests.md5().get());
    }
    assertEquals(2 * chunks, taken.get(), "each lane says once per chunk that it has taken the chunk in");
  }

  @Provide
  Arbitrary<byte[]> bytes() {
    return Arbitraries.bytes().array(byte[].class).ofMaxSize(3 * DigestLanes.DIGEST_SLICE);
  }

  @Provide
  Arbitrary<List<Integer>> cuts() {
    return Arbitraries.integers().between(0, 2 * DigestLanes.DIGEST_SLICE + 1).list().ofMaxSize(4);
  }
}
