package dev.ratisoffload.restore;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Hashes;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectStore;
import java.io.IOException;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Streams files out of a store with several chunk reads in flight, because an object store's latency,
 * not its bandwidth, bounds one read after another. Chunks are written in order, each verified (size,
 * SHA-256) before it is written; the whole file's SHA-256 and MD5 are checked at the end. The two file
 * digests run on threads of their own, in order, while the next chunk is written, so that neither
 * bounds the copy. Memory holds at most {@code 2 * parallelism} chunks (read ahead, and written but not
 * yet digested).
 */
final class ChunkPipeline implements AutoCloseable {

  static final int DEFAULT_PARALLELISM = 8;

  private final GenerationReader reader;
  private final int parallelism;
  private final ExecutorService pool;
  private final ExecutorService shaLane = Executors.newSingleThreadExecutor(lane("offload-restore-sha256"));
  private final ExecutorService md5Lane = Executors.newSingleThreadExecutor(lane("offload-restore-md5"));
  private final Semaphore undigested;

  ChunkPipeline(ObjectStore store, int parallelism) {
    this.undigested = new Semaphore(parallelism);
    this.reader = new GenerationReader(store);
    this.parallelism = parallelism;
    AtomicInteger count = new AtomicInteger();
    this.pool = Executors.newFixedThreadPool(parallelism, r -> {
      Thread thread = new Thread(r, "offload-chunk-read-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
  }

  /**
   * Writes the file's bytes to {@code out}.
   *
   * @throws IOException when {@code out} fails
   * @throws IntegrityException naming the chunk or file that is missing or wrong
   * @throws dev.ratisoffload.store.StoreException when the store fails
   */
  void copy(Manifest manifest, Manifest.FileEntry file, OutputStream out) throws IOException {
    MessageDigest sha = Hashes.sha256();
    MessageDigest md5 = Hashes.md5();
    Deque<Future<byte[]>> window = new ArrayDeque<>();
    Iterator<Manifest.ChunkRef> chunks = file.chunks().iterator();
    try {
      while (chunks.hasNext() || !window.isEmpty()) {
        while (window.size() < parallelism && chunks.hasNext()) {
          Manifest.ChunkRef chunk = chunks.next();
          window.add(pool.submit(() -> reader.readChunk(manifest, file, chunk)));
        }
        byte[] bytes = await(window.poll());
        digest(sha, md5, bytes);
        out.write(bytes);
      }
    } finally {
      window.forEach(f -> f.cancel(true));
    }
    String actualSha = await(shaLane.submit(() -> Hashes.hex(sha.digest())));
    if (!actualSha.equals(file.sha256())) {
      throw new IntegrityException("file " + file.path() + " of " + describe(manifest) + " has SHA-256 "
          + actualSha + ", the manifest says " + file.sha256());
    }
    String actualMd5 = await(md5Lane.submit(() -> Hashes.hex(md5.digest())));
    if (file.md5() != null && !actualMd5.equals(file.md5())) {
      throw new IntegrityException("file " + file.path() + " of " + describe(manifest) + " has MD5 "
          + actualMd5 + ", the manifest says " + file.md5());
    }
  }

  /** Hands the chunk to both digest lanes, waiting while {@code parallelism} chunks are undigested. */
  private void digest(MessageDigest sha, MessageDigest md5, byte[] bytes) throws IOException {
    try {
      undigested.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while hashing", e);
    }
    AtomicInteger lanes = new AtomicInteger(2);
    Runnable done = () -> {
      if (lanes.decrementAndGet() == 0) {
        undigested.release();
      }
    };
    shaLane.execute(() -> {
      try {
        sha.update(bytes);
      } finally {
        done.run();
      }
    });
    md5Lane.execute(() -> {
      try {
        md5.update(bytes);
      } finally {
        done.run();
      }
    });
  }

  private static java.util.concurrent.ThreadFactory lane(String name) {
    return r -> {
      Thread thread = new Thread(r, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  private static <T> T await(Future<T> chunk) throws IOException {
    try {
      return chunk.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while reading chunks", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IllegalStateException("reading a chunk failed", e.getCause());
    }
  }

  private static String describe(Manifest m) {
    return "generation " + m.index() + " (term " + m.term() + ") of group " + m.group() + " in cluster "
        + m.cluster();
  }

  @Override
  public void close() {
    pool.shutdownNow();
    shaLane.shutdownNow();
    md5Lane.shutdownNow();
  }
}
