package dev.ratisoffload.restore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.io.DurableFiles;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ForwardingObjectStore;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreUnavailableException;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The chunk pipeline writes every file of a generation, in order, byte for byte, whatever the file
 * sizes (empty files included) and however the read-ahead window spans file boundaries; a changed chunk
 * fails the copy naming it, bytes changed on the way fail it as worth another try, and intact chunks
 * that do not rebuild the file fail it too.
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
        ChunkPipeline pipeline = new ChunkPipeline(store, parallelism, ChunkMemory.ofThisJvm())) {
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
      DurableFiles.deleteTree(scratch);
    }
  }

  @Property(tries = 30)
  void aChangedChunkFailsTheCopyNamingIt(@ForAll @IntRange(min = 3000, max = 9000) int size,
      @ForAll @IntRange(min = 0, max = 100) int victimPercent) throws Exception {
    withOneFile(size, (store, manifest) -> {
      Manifest.ChunkRef victim = chunkAt(manifest, victimPercent);
      String key = Layout.chunkKey("c1", manifest.group(), victim.sha256());
      store.delete(key);
      store.putIfAbsent(key, Content.of(Generations.random(victim.size(), 7)));
      IntegrityException e = assertThrows(IntegrityException.class, () -> copy(store, manifest));
      assertTrue(e.getMessage().contains(key) && e.getMessage().contains("its bytes were changed"), e::getMessage);
    });
  }

  /** A chunk whose bytes change on the way once, but not when read again: worth another try. */
  @Property(tries = 20)
  void bytesChangedOnTheWayAreRetriable(@ForAll @IntRange(min = 3000, max = 9000) int size,
      @ForAll @IntRange(min = 0, max = 100) int victimPercent) throws Exception {
    withOneFile(size, (store, manifest) -> {
      String key = Layout.chunkKey("c1", manifest.group(), chunkAt(manifest, victimPercent).sha256());
      StoreUnavailableException e = assertThrows(StoreUnavailableException.class,
          () -> copy(new FlipsOnce(store, key), manifest));
      assertTrue(e.getMessage().contains("changed on the way") && e.isRetriable(), e::getMessage);
    });
  }

  /** Intact chunks listed in another order than the file's: the file's SHA-256 catches it. */
  @Property(tries = 20)
  void chunksThatDoNotRebuildTheFileAreCaught(@ForAll @IntRange(min = 3000, max = 9000) int size)
      throws Exception {
    withOneFile(size, (store, published) -> {
      Manifest.FileEntry file = published.files().get(0);
      List<Manifest.ChunkRef> reversed = new ArrayList<>(file.chunks());
      java.util.Collections.reverse(reversed);
      Assume.that(!reversed.equals(file.chunks()));
      Manifest reordered = new Manifest(published.format(), published.cluster(), published.group(),
          published.term(), published.index(), published.peers(), published.publisher(), published.createdAt(),
          published.toolVersion(), List.of(new Manifest.FileEntry(file.path(), file.size(), file.sha256(),
              file.md5(), reversed)));
      IntegrityException e = assertThrows(IntegrityException.class, () -> copy(store, reordered));
      assertTrue(e.getMessage().contains("does not rebuild the file"), e::getMessage);
    });
  }

  /** What a failure test does with a store holding one published generation of one file. */
  private interface OneFileCase {
    void run(DirectoryObjectStore store, Manifest manifest) throws Exception;
  }

  private static void withOneFile(int size, OneFileCase test) throws Exception {
    Path scratch = Files.createTempDirectory("pipeline");
    try (DirectoryObjectStore store = new DirectoryObjectStore(Files.createDirectories(scratch.resolve("store")))) {
      test.run(store, new GenerationReader(store).readManifest(Generations.publish(store, scratch,
          new Generations.Snapshot("c1", "02511d47-d67c-49a3-9011-abb3109a44c1", 1, 10, 2, Instant.EPOCH,
              Map.of("sm/state", Generations.random(size, size)))).id()));
    } finally {
      DurableFiles.deleteTree(scratch);
    }
  }

  /** Copies the generation into a sink that keeps nothing. */
  private static void copy(ObjectStore store, Manifest manifest) throws Exception {
    try (ChunkPipeline pipeline = new ChunkPipeline(store, 3, ChunkMemory.ofThisJvm())) {
      pipeline.copy(manifest, new ChunkPipeline.FileSink() {
        @Override
        public OutputStream open(Manifest.FileEntry file) {
          return OutputStream.nullOutputStream();
        }

        @Override
        public void written(Manifest.FileEntry file, OutputStream out) {}
      });
    }
  }

  private static Manifest.ChunkRef chunkAt(Manifest manifest, int percent) {
    List<Manifest.ChunkRef> chunks = manifest.files().get(0).chunks();
    return chunks.get(Math.min(chunks.size() - 1, chunks.size() * percent / 100));
  }

  /** Changes the first byte of one object the first time it is read. */
  private static final class FlipsOnce extends ForwardingObjectStore {
    private final String key;
    private final AtomicBoolean flipped = new AtomicBoolean();

    FlipsOnce(ObjectStore delegate, String key) {
      super(delegate);
      this.key = key;
    }

    @Override
    public InputStream get(String requested) {
      InputStream in = delegate.get(requested);
      if (!requested.equals(key) || flipped.getAndSet(true)) {
        return in;
      }
      return new java.io.FilterInputStream(in) {
        private boolean first = true;

        @Override
        public int read(byte[] b, int off, int len) throws java.io.IOException {
          int n = super.read(b, off, len);
          if (first && n > 0) {
            b[off] ^= 1;
            first = false;
          }
          return n;
        }
      };
    }
  }
}
