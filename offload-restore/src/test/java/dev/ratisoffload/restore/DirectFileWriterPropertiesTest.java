package dev.ratisoffload.restore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ratisoffload.io.DurableFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * A file written by {@link DirectFileWriter} holds exactly the bytes written, at its exact length,
 * whatever the sizes of the writes (partial blocks, whole buffers, nothing at all), written past the page
 * cache or through it, one buffer shared by the files written one after the other.
 */
class DirectFileWriterPropertiesTest {

  private static Path dir;
  private static ByteBuffer buffer;

  @BeforeContainer
  static void createDirectory() throws IOException {
    dir = Files.createTempDirectory("direct-writer");
    buffer = DirectFileWriter.newBuffer();
  }

  @AfterContainer
  static void deleteDirectory() throws IOException {
    DurableFiles.deleteTree(dir);
  }

  @Property(tries = 60)
  void theFileHoldsExactlyWhatWasWritten(@ForAll("writeSizes") List<Integer> writes, @ForAll boolean direct,
      @ForAll long seed) throws IOException {
    int total = writes.stream().mapToInt(Integer::intValue).sum();
    byte[] expected = new byte[total];
    new Random(seed).nextBytes(expected);
    Path file = Files.createTempDirectory(dir, "f").resolve("file");
    boolean useDirect = direct && DirectFileWriter.supported(file.getParent());
    try (DirectFileWriter writer = DirectFileWriter.create(file, buffer, useDirect)) {
      int offset = 0;
      for (int size : writes) {
        writer.write(expected, offset, size);
        offset += size;
      }
      writer.finish();
      writer.channel().force(true);
    }
    assertArrayEquals(expected, Files.readAllBytes(file));
  }

  @Property(tries = 5)
  void anExistingFileIsNeverOverwritten(@ForAll boolean direct) throws IOException {
    Path file = Files.createTempFile(dir, "existing", "");
    Files.write(file, new byte[] {1, 2, 3});
    assertThrows(FileAlreadyExistsException.class,
        () -> DirectFileWriter.create(file, buffer, direct && DirectFileWriter.supported(dir)).close());
    assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(file));
  }

  /** Sizes around the block and the buffer: empty, partial blocks, whole blocks, a buffer and more. */
  @Provide
  Arbitrary<List<Integer>> writeSizes() {
    int block = DirectFileWriter.ALIGNMENT;
    int bufferBytes = DirectFileWriter.BUFFER_BYTES;
    Arbitrary<Integer> size = Arbitraries.oneOf(Arbitraries.integers().between(0, 3 * block),
        Arbitraries.of(block - 1, block, block + 1, bufferBytes - 1, bufferBytes, bufferBytes + 1),
        Arbitraries.integers().between(0, 2 * bufferBytes + block));
    return size.list().ofMinSize(0).ofMaxSize(6);
  }
}
