package dev.ratisoffload.restore;

import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.io.DurableFiles;
import dev.ratisoffload.primitives.DaemonThreads;
import dev.ratisoffload.primitives.Futures;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Writes one generation into an empty staging directory laid out as a Ratis group directory: the
 * snapshot files (each checked whole by its SHA-256, {@link ChunkPipeline}), their MD5 sidecars, and
 * {@code current/}. Files go to the disk past the page cache where the file system allows it
 * ({@link DirectFileWriter}); each is forced to disk while the next one downloads; everything is on
 * disk before it returns.
 */
final class GroupStager {

  private final ChunkPipeline chunks;

  GroupStager(ChunkPipeline chunks) {
    this.chunks = chunks;
  }

  /**
   * @throws IOException when the staging directory cannot be written
   * @throws dev.ratisoffload.store.StoreException when the store fails or holds corrupt data
   */
  void stage(Path stagingDir, GroupPlan plan, TransferListener listener) throws IOException {
    Manifest manifest = plan.manifest();
    String key = plan.id().manifestKey();
    ExecutorService forcing = Executors.newSingleThreadExecutor(DaemonThreads.named("offload-restore-force"));
    Map<Manifest.FileEntry, DirectFileWriter> writers = new IdentityHashMap<>();
    List<Future<?>> forced = new ArrayList<>();
    // One buffer for every file: the pipeline writes them one after the other.
    ByteBuffer buffer = DirectFileWriter.newBuffer();
    boolean direct = DirectFileWriter.supported(stagingDir);
    try {
      chunks.copy(manifest, new ChunkPipeline.FileSink() {
        @Override
        public OutputStream open(Manifest.FileEntry file) throws IOException {
          Path target = SafePaths.resolveInside(stagingDir, file.path(), key);
          Files.createDirectories(target.getParent());
          DirectFileWriter writer = DirectFileWriter.create(target, buffer, direct);
          writers.put(file, writer);
          return new CountingOutput(writer, listener);
        }

        @Override
        public void written(Manifest.FileEntry file, OutputStream out) throws IOException {
          DirectFileWriter writer = writers.remove(file);
          try {
            writer.finish();
          } catch (IOException e) {
            writer.close();
            throw e;
          }
          // Forced to disk (its size, and what the page cache holds) while the next file downloads.
          forced.add(forcing.submit(() -> {
            try (writer) {
              writer.channel().force(true);
            }
            return null;
          }));
        }
      });
      for (Future<?> f : forced) {
        Futures.await(f, "forcing restored files to disk");
      }
    } finally {
      forcing.shutdownNow();
      for (DirectFileWriter open : writers.values()) {
        open.close();
      }
    }
    for (Manifest.FileEntry file : manifest.files()) {
      if (file.md5() != null) {
        RatisDirectoryWriter.writeMd5Sidecar(SafePaths.resolveInside(stagingDir, file.path(), key), file.md5());
      }
    }
    RatisDirectoryWriter.writeCurrent(stagingDir, plan.term(), manifest.term(), manifest.index(),
        plan.peers());
    DurableFiles.syncTree(stagingDir);
  }

  /** Reports bytes as they are written; each write is a chunk that was already verified. */
  private static final class CountingOutput extends OutputStream {
    private final OutputStream out;
    private final TransferListener listener;

    CountingOutput(OutputStream out, TransferListener listener) {
      this.out = out;
      this.listener = listener;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      listener.transferred(1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      out.write(bytes, offset, length);
      listener.transferred(length);
    }
  }
}
