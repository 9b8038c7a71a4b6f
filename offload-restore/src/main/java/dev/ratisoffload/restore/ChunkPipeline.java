package dev.ratisoffload.restore;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.primitives.DaemonThreads;
import dev.ratisoffload.primitives.Futures;
import dev.ratisoffload.primitives.Hashes;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectStore;
import java.io.IOException;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Streams a generation's files out of a store with several chunk reads in flight, because an object
 * store's latency, not its bandwidth, bounds one read after another; the reads run ahead across file
 * boundaries. Chunks are written in order, each checked for its size as it arrives.
 *
 * <p>Every byte is hashed once, into its whole file's SHA-256, on a thread of its own and in order while
 * the next chunks are written, so that hashing does not bound the copy. That digest, which the verified
 * manifest names, proves every byte of the file and that its chunks rebuild it. When it does not match,
 * the copy stops at the next chunk and the file's chunks are read again, each checked against its own
 * SHA-256, to name the damaged object ({@link GenerationReader#fileMismatch}): a damaged chunk may
 * reach the sink, so a sink must not keep what a failed copy wrote (a restore writes into a staging
 * directory). The file's MD5 is not computed again: a matching SHA-256 proves the bytes are the ones
 * published, whose MD5 the publish checked against Ratis's.
 *
 * <p>Memory holds at most {@code 2 * reads + 2} chunk arrays (read ahead, being written, written but not
 * yet digested, one to name a damaged chunk), reused from chunk to chunk; the reads in flight are as many
 * as the heap holds ({@link ChunkMemory}), at most {@code parallelism}.
 */
final class ChunkPipeline implements AutoCloseable {

  static final int DEFAULT_PARALLELISM = 8;

  private final GenerationReader reader;
  private final int parallelism;
  private final ExecutorService pool;
  private final ExecutorService shaLane = Executors.newSingleThreadExecutor(DaemonThreads.named("offload-restore-sha256"));
  private final ChunkMemory memory;

  ChunkPipeline(ObjectStore store, int parallelism, ChunkMemory memory) {
    this.reader = new GenerationReader(store);
    this.parallelism = parallelism;
    this.memory = memory;
    this.pool = Executors.newFixedThreadPool(parallelism, DaemonThreads.named("offload-chunk-read"));
  }

  /** Where the files of a generation go, one after the other. */
  interface FileSink {
    /** Opens the file the next chunks belong to. */
    OutputStream open(Manifest.FileEntry file) throws IOException;

    /** Every byte of the file was written to the stream {@link #open} returned (not yet verified whole). */
    void written(Manifest.FileEntry file, OutputStream out) throws IOException;
  }

  /**
   * Writes every file of the generation to the sink, in the manifest's order, with one read-ahead
   * window across file boundaries: the next file's chunks are on their way while this one is written.
   * Each file's SHA-256 is checked on the digest lane after its last chunk; this returns once
   * every file was checked.
   *
   * @throws IOException when the sink fails
   * @throws IntegrityException naming the chunk or file that is missing or wrong
   * @throws dev.ratisoffload.store.StoreException when the store fails, or the bytes changed on the way
   * @throws HeapTooSmallException before the first read, when the heap cannot hold one read's chunks
   */
  void copy(Manifest manifest, FileSink sink) throws IOException {
    record Pending(int file, Manifest.ChunkRef chunk, Future<byte[]> bytes) {}
    int reads = memory.readsInFlight(manifest, parallelism);
    Semaphore undigested = new Semaphore(reads);
    List<Manifest.FileEntry> files = manifest.files();
    ChunkArrays arrays = new ChunkArrays(manifest);
    AtomicReference<Mismatch> mismatch = new AtomicReference<>();
    int reading = -1;
    Iterator<Manifest.ChunkRef> chunks = java.util.Collections.emptyIterator();
    Deque<Pending> window = new ArrayDeque<>();
    List<Future<?>> checks = new ArrayList<>();
    OpenFile open = null;
    try {
      while (true) {
        while (window.size() < reads) {
          while (!chunks.hasNext() && reading + 1 < files.size()) {
            chunks = files.get(++reading).chunks().iterator();
          }
          if (!chunks.hasNext()) {
            break;
          }
          Manifest.FileEntry file = files.get(reading);
          Manifest.ChunkRef chunk = chunks.next();
          window.add(new Pending(reading, chunk, pool.submit(() -> {
            byte[] into = arrays.take();
            reader.fetchChunk(manifest, file, chunk, into); // a failed read's array is left to the collector
            return into;
          })));
        }
        Pending next = window.poll();
        // Every file up to the next chunk's (or to the last, at the end) is opened in order, so that a
        // file without chunks (an empty file) is written too.
        int upTo = next == null ? files.size() - 1 : next.file();
        while (open == null || open.index < upTo) {
          if (open != null) {
            checks.add(finish(open, mismatch));
            sink.written(open.file, open.out);
          }
          int index = open == null ? 0 : open.index + 1;
          if (index >= files.size()) {
            break;
          }
          open = new OpenFile(index, files.get(index), sink.open(files.get(index)));
        }
        if (next == null) {
          if (open != null) {
            checks.add(finish(open, mismatch));
            sink.written(open.file, open.out);
          }
          break;
        }
        failIfDamaged(manifest, mismatch.get(), arrays);
        byte[] bytes = Futures.await(next.bytes(), "reading chunks");
        int size = next.chunk().size();
        open.out.write(bytes, 0, size);
        digest(open.sha, bytes, size, arrays, undigested); // after the write: the digest lane gives the array back
      }
    } finally {
      window.forEach(pending -> pending.bytes().cancel(true));
    }
    for (Future<?> check : checks) {
      Futures.await(check, "reading chunks");
    }
    failIfDamaged(manifest, mismatch.get(), arrays);
  }

  /** A file whose bytes hashed to another SHA-256 than the manifest's. */
  private record Mismatch(Manifest.FileEntry file, String sha256) {}

  private void failIfDamaged(Manifest manifest, Mismatch mismatch, ChunkArrays arrays) {
    if (mismatch != null) {
      throw reader.fileMismatch(manifest, mismatch.file(), mismatch.sha256(), arrays.take());
    }
  }

  /** The file being written, with its running digests. */
  private static final class OpenFile {
    final int index;
    final Manifest.FileEntry file;
    final OutputStream out;
    final MessageDigest sha = Hashes.sha256();

    OpenFile(int index, Manifest.FileEntry file, OutputStream out) {
      this.index = index;
      this.file = file;
      this.out = out;
    }
  }

  /** Queues the file's whole-file check behind its last chunk on the digest lane. */
  private Future<?> finish(OpenFile open, AtomicReference<Mismatch> mismatch) {
    return shaLane.submit(() -> {
      String sha256 = Hashes.hex(open.sha.digest());
      if (!sha256.equals(open.file.sha256())) {
        mismatch.compareAndSet(null, new Mismatch(open.file, sha256));
      }
    });
  }

  /**
   * Hands the chunk to the digest lane, waiting while as many chunks as reads in flight are undigested;
   * the lane gives its array back once digested.
   */
  private void digest(MessageDigest sha, byte[] bytes, int size, ChunkArrays arrays, Semaphore undigested)
      throws IOException {
    try {
      undigested.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while hashing", e);
    }
    shaLane.execute(() -> {
      try {
        sha.update(bytes, 0, size);
      } finally {
        arrays.giveBack(bytes);
        undigested.release();
      }
    });
  }

  /**
   * Arrays for chunks, each as large as the generation's largest chunk, reused from chunk to chunk: at
   * most {@code 2 * reads + 2} are in use (read ahead, being written, undigested), and chunks of
   * about a megabyte are large objects whose allocation sets off the garbage collector's cycles.
   */
  private static final class ChunkArrays {
    private final int size;
    private final Queue<byte[]> free = new ConcurrentLinkedQueue<>();

    ChunkArrays(Manifest manifest) {
      this.size = (int) ChunkMemory.largestChunk(manifest);
    }

    byte[] take() {
      byte[] array = free.poll();
      return array != null ? array : new byte[size];
    }

    void giveBack(byte[] array) {
      free.offer(array);
    }
  }


  @Override
  public void close() {
    pool.shutdownNow();
    shaLane.shutdownNow();
  }
}
