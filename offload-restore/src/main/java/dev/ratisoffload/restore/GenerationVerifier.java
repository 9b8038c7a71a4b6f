package dev.ratisoffload.restore;

import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectStore;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/**
 * Proves a generation's data intact: every chunk present with the size its manifest names, and every
 * file's SHA-256 over its chunks, which proves each chunk's bytes too; a damaged file is read again
 * chunk by chunk to name the damaged chunk ({@link ChunkPipeline}). The manifest itself is checked when
 * read (see {@link GenerationCatalog#readOne}).
 */
public final class GenerationVerifier implements AutoCloseable {

  private final ChunkPipeline chunks;

  public GenerationVerifier(ObjectStore store) {
    this.chunks = new ChunkPipeline(store, ChunkPipeline.DEFAULT_PARALLELISM, ChunkMemory.ofThisJvm());
  }

  /**
   * @return null when every byte is as the manifest says, else the first defect found
   * @throws dev.ratisoffload.store.StoreException when the store fails (not a defect of the data)
   * @throws HeapTooSmallException when this JVM's heap cannot hold the generation's chunks
   */
  public IntegrityException verifyData(Manifest manifest, TransferListener listener) {
    try {
      OutputStream counting = new OutputStream() {
        @Override
        public void write(int b) {
          listener.transferred(1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
          listener.transferred(length);
        }
      };
      chunks.copy(manifest, new ChunkPipeline.FileSink() {
        @Override
        public OutputStream open(Manifest.FileEntry file) {
          return counting;
        }

        @Override
        public void written(Manifest.FileEntry file, OutputStream out) {
          // nothing to keep: the bytes were only verified
        }
      });
      return null;
    } catch (IntegrityException e) {
      return e;
    } catch (IOException e) {
      throw new UncheckedIOException(e); // the sink never fails
    }
  }

  @Override
  public void close() {
    chunks.close();
  }
}
