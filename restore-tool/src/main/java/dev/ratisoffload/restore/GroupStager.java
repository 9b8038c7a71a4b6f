package dev.ratisoffload.restore;

import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.io.DurableFiles;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Writes one generation into an empty staging directory laid out as a Ratis group directory: the
 * snapshot files (each chunk verified before it is written, each file's SHA-256 after), their MD5
 * sidecars, and {@code current/}. Each file is forced to disk while the next one downloads; everything
 * is on disk before it returns.
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
    ExecutorService forcing = Executors.newSingleThreadExecutor(r -> {
      Thread thread = new Thread(r, "offload-restore-force");
      thread.setDaemon(true);
      return thread;
    });
    Map<Manifest.FileEntry, FileChannel> channels = new IdentityHashMap<>();
    List<Future<?>> forced = new ArrayList<>();
    try {
      chunks.copy(manifest, new ChunkPipeline.FileSink() {
        @Override
        public OutputStream open(Manifest.FileEntry file) throws IOException {
          Path target = SafePaths.resolveInside(stagingDir, file.path(), key);
          Files.createDirectories(target.getParent());
          FileChannel channel = FileChannel.open(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
          channels.put(file, channel);
          return new CountingOutput(Channels.newOutputStream(channel), listener);
        }

        @Override
        public void written(Manifest.FileEntry file, OutputStream out) {
          // Forced to disk while the next file downloads.
          FileChannel channel = channels.remove(file);
          forced.add(forcing.submit(() -> {
            try (channel) {
              channel.force(true);
            }
            return null;
          }));
        }
      });
      for (Future<?> f : forced) {
        awaitForced(f);
      }
    } finally {
      forcing.shutdownNow();
      for (FileChannel open : channels.values()) {
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

  private static void awaitForced(Future<?> forced) throws IOException {
    try {
      forced.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while forcing restored files to disk", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IllegalStateException("forcing a restored file to disk failed", e.getCause());
    }
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
