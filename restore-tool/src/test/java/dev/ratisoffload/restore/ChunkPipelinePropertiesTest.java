package dev.ratisoffload.restore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.IntegrityException;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The chunk pipeline writes every file of a generation, in order, byte for byte, whatever the file
 * sizes (empty files included) and however the read-ahead window spans file boundaries; a changed chunk
 * never reaches the sink.
 */
class ChunkPipelinePropertiesTest {

  @Property(tries = 60)
  void everyFileArrivesWholeAndInOrder(@ForAll @Size(min = 1, max = 6) List<@IntRange(max = 9000) Integer> sizes,
      @ForAll @IntRange(min = 1, max = 5) int parallelism) throws Exception {
    Map<String, byte[]> files = new LinkedHashMap<>();
    for (int i = 0; i < sizes.size(); i++) {
      files.put("sm/file-" + i, Generations.random(sizes.get(i), i * 31L + sizes.get(i)));
    }
    Path scratch = Files.createTempDirectory("pipeline");
    try (DirectoryObjectStore store = new DirectoryObjectStore(Files.createDirectories(scratch.resolve("store")));
        ChunkPipeline pipeline = new ChunkPipeline(store, parallelism)) {
      Manifest manifest = new GenerationReader(store).readManifest(Generations.publish(store, scratch,
          new Generations.Snapshot("c1", "02511d47-d67c-49a3-9011-abb3109a44c1", 1, 10, 2, Instant.EPOCH, files)).id());
      List<String> opened = new ArrayList<>();
      Map<String, ByteArrayOutputStream> written = new LinkedHashMap<>();
      pipeline.copy(manifest, new ChunkPipeline.FileSink() {
        @Override
        public OutputStream open(Manifest.FileEntry file) {
          opened.add(file.path());
          return written.computeIfAbsent(file.path(), p -> new ByteArrayOutputStream());
        }

        @Override
        public void written(Manifest.FileEntry file, OutputStream out) {
          assertEquals(opened.get(opened.size() - 1), file.path(), "each file is finished before the next opens");
        }
      });
      assertEquals(List.copyOf(files.keySet()), opened);
      files.forEach((path, bytes) -> assertArrayEquals(bytes, written.get(path).toByteArray(), path));
    } finally {
      dev.ratisoffload.io.DurableFiles.deleteTree(scratch);
    }
  }

  @Property(tries = 30)
  void aChangedChunkStopsTheCopyNamingIt(@ForAll @IntRange(min = 3000, max = 9000) int size,
      @ForAll @IntRange(min = 0, max = 100) int victimPercent) throws Exception {
    Path scratch = Files.createTempDirectory("pipeline");
    try (DirectoryObjectStore store = new DirectoryObjectStore(Files.createDirectories(scratch.resolve("store")));
        ChunkPipeline pipeline = new ChunkPipeline(store, 3)) {
      Manifest manifest = new GenerationReader(store).readManifest(Generations.publish(store, scratch,
          new Generations.Snapshot("c1", "02511d47-d67c-49a3-9011-abb3109a44c1", 1, 10, 2, Instant.EPOCH,
              Map.of("sm/state", Generations.random(size, size)))).id());
      List<Manifest.ChunkRef> chunks = manifest.files().get(0).chunks();
      Manifest.ChunkRef victim = chunks.get(Math.min(chunks.size() - 1, chunks.size() * victimPercent / 100));
      String key = dev.ratisoffload.format.Layout.chunkKey("c1", manifest.group(), victim.sha256());
      store.delete(key);
      store.putIfAbsent(key, Content.of(Generations.random(victim.size(), 7)));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      IntegrityException e = assertThrows(IntegrityException.class, () -> pipeline.copy(manifest,
          new ChunkPipeline.FileSink() {
            @Override
            public OutputStream open(Manifest.FileEntry file) {
              return out;
            }

            @Override
            public void written(Manifest.FileEntry file, OutputStream o) {}
          }));
      assertTrue(e.getMessage().contains(key), e::getMessage);
      long before = chunks.stream().takeWhile(c -> c != victim).mapToLong(Manifest.ChunkRef::size).sum();
      assertTrue(out.size() <= before, "nothing of the changed chunk or after it was written");
    } finally {
      dev.ratisoffload.io.DurableFiles.deleteTree(scratch);
    }
  }
}
