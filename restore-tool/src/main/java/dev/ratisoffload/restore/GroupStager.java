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

/**
 * Writes one generation into an empty staging directory laid out as a Ratis group directory: the
 * snapshot files (each chunk verified before it is written, each file's hashes after), their MD5
 * sidecars, and {@code current/}. Everything is forced to disk before it returns.
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
    for (Manifest.FileEntry file : manifest.files()) {
      Path target = SafePaths.resolveInside(stagingDir, file.path(), key);
      Files.createDirectories(target.getParent());
      try (FileChannel channel = FileChannel.open(target, StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE)) {
        chunks.copy(manifest, file, new CountingOutput(Channels.newOutputStream(channel), listener));
        channel.force(true);
      }
      if (file.md5() != null) {
        RatisDirectoryWriter.writeMd5Sidecar(target, file.md5());
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
