package dev.ratisoffload.publish;

import dev.ratisoffload.format.Chunker;
import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.ChunkingPolicy;
import dev.ratisoffload.format.Hashes;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.format.ManifestCodec;
import dev.ratisoffload.format.ToolVersion;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.ObjectStore.PutOutcome;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Turns a pinned snapshot into a generation: splits each file into content-defined chunks while
 * hashing it, uploads the chunks the store lacks (in parallel, with a bounded number in memory), and
 * writes the manifest last, with put-if-absent, only if the {@link Fence} still allows it. A generation
 * therefore exists exactly when its manifest does, and every chunk it names was stored before it.
 */
public final class GenerationPublisher {

  private final ObjectStore store;
  private final ChunkingPolicy chunking;
  private final Executor uploads;
  private final int maxChunksInFlight;
  private final Clock clock;

  /**
   * @param uploads runs chunk uploads; its parallelism is the upload parallelism
   * @param maxChunksInFlight chunks read but not yet stored; bounds memory to this many maximal chunks
   */
  public GenerationPublisher(ObjectStore store, ChunkingPolicy chunking, Executor uploads,
      int maxChunksInFlight, Clock clock) {
    this.store = store;
    this.chunking = chunking;
    this.uploads = uploads;
    this.maxChunksInFlight = maxChunksInFlight;
    this.clock = clock;
  }

  /**
   * Publishes the snapshot. Store errors propagate as {@link dev.ratisoffload.store.StoreException}s
   * (no manifest is written then); a fence that closes yields {@link PublishResult.Skipped}.
   */
  public PublishResult publish(SnapshotSource source, Fence fence) throws IOException {
    long started = System.nanoTime();
    GenerationId id = new GenerationId(source.cluster(), source.group(), source.term(), source.index());
    Upload upload = new Upload(source, fence);
    List<Manifest.FileEntry> files = new ArrayList<>();
    for (SnapshotSource.PinnedFile file : source.files()) {
      files.add(upload.file(file));
      if (upload.stopped != null) {
        upload.awaitQuietly();
        return new PublishResult.Skipped(upload.stopped, "stopped while uploading " + file.path());
      }
    }
    upload.awaitAll();
    if (upload.stopped != null) {
      return new PublishResult.Skipped(upload.stopped, "stopped while uploading chunks");
    }
    Manifest manifest = new Manifest(Manifest.FORMAT_VERSION, source.cluster(), source.group(),
        source.term(), source.index(), source.peers(), source.publisher(),
        Instant.now(clock).truncatedTo(ChronoUnit.MILLIS), ToolVersion.get(), files);
    byte[] encoded = ManifestCodec.encode(manifest);
    // The last check before the generation becomes visible: a deposed leader must not publish.
    return fence.exclusive(() -> {
      SkipReason stop = fence.check();
      if (stop != null) {
        return new PublishResult.Skipped(stop, "checked before writing the manifest");
      }
      store.putIfAbsent(id.manifestKey(), Content.of(encoded));
      return new PublishResult.Published(id, id.manifestKey(), upload.uploadedBytes.get(),
          manifest.totalBytes(), upload.uploadedChunks.get(), upload.totalChunks.get(),
          Duration.ofNanos(System.nanoTime() - started));
    });
  }

  /** Ends the reading of a file once the fence has stopped the publish. */
  private static final class Stopped extends IOException {
    Stopped() {
      super("stopped by the fence");
    }
  }

  /**
   * Chunks known to be stored before the publish starts (SHA-256 to size), so that most chunks need no
   * request of their own to be de-duplicated: those the group's newest generation names (a generation's
   * chunks stay while it exists, and the newest is never collected), or, for a group without a
   * generation, those a listing finds (left by a publish that failed). A chunk not known is looked for
   * with a head request first only when the group has a generation (an older one may hold it); in a
   * group without one it is written at once, and put-if-absent still settles a race.
   */
  private record Known(Map<String, Long> chunks, boolean headUnknown) {

    static Known of(ObjectStore store, SnapshotSource source) {
      Map<String, Long> chunks = new HashMap<>();
      try {
        GenerationReader reader = new GenerationReader(store);
        Optional<GenerationReader.StoredGeneration> newest = reader.newest(source.cluster(), source.group());
        if (newest.isPresent()) {
          for (Manifest.FileEntry file : reader.readManifest(newest.get().id()).files()) {
            file.chunks().forEach(c -> chunks.put(c.sha256(), (long) c.size()));
          }
          return new Known(chunks, true);
        }
        for (ObjectInfo object : store.list(Layout.chunkPrefix(source.cluster(), source.group()))) {
          chunks.put(object.key().substring(object.key().lastIndexOf('/') + 1), object.size());
        }
        return new Known(chunks, false);
      } catch (RuntimeException e) {
        return new Known(Map.of(), true); // e.g. a damaged newest manifest: look for every chunk
      }
    }

    boolean stored(String sha256, int size) {
      Long known = chunks.get(sha256);
      return known != null && known == size;
    }
  }

  /** The state of one publish: chunks in flight, counters, and whether the fence stopped it. */
  private final class Upload {
    private final SnapshotSource source;
    private final Fence fence;
    private final Known known;
    private final Semaphore inFlight = new Semaphore(maxChunksInFlight);
    private final List<Future<?>> pending = new ArrayList<>();
    private final AtomicLong uploadedBytes = new AtomicLong();
    private final AtomicInteger uploadedChunks = new AtomicInteger();
    private final AtomicInteger totalChunks = new AtomicInteger();
    private volatile SkipReason stopped;

    Upload(SnapshotSource source, Fence fence) {
      this.source = source;
      this.fence = fence;
      this.known = Known.of(store, source);
    }

    Manifest.FileEntry file(SnapshotSource.PinnedFile file) throws IOException {
      MessageDigest sha = Hashes.sha256();
      MessageDigest md5 = Hashes.md5();
      List<Manifest.ChunkRef> chunks = new ArrayList<>();
      long[] size = {0};
      try (InputStream in = Files.newInputStream(file.pinned())) {
        new Chunker(chunking).split(in, chunk -> {
          sha.update(chunk);
          md5.update(chunk);
          size[0] += chunk.length;
          String chunkSha = Hashes.sha256Hex(chunk);
          chunks.add(new Manifest.ChunkRef(chunkSha, chunk.length));
          submit(chunkSha, chunk);
          if (stopped != null) {
            throw new Stopped();
          }
        });
      } catch (Stopped stop) {
        return null; // the caller sees `stopped`; this file's entry is never used
      }
      String md5Hex = Hashes.hex(md5.digest());
      if (file.expectedMd5() != null && !file.expectedMd5().equals(md5Hex)) {
        throw new IOException("snapshot file " + file.path() + " has MD5 " + md5Hex
            + " but Ratis recorded " + file.expectedMd5()
            + ": the local snapshot is corrupt; it was not published");
      }
      return new Manifest.FileEntry(file.path(), size[0], Hashes.hex(sha.digest()),
          file.expectedMd5() == null ? null : md5Hex, chunks);
    }

    private void submit(String chunkSha, byte[] chunk) throws IOException {
      SkipReason stop = fence.check();
      if (stop != null) {
        stopped = stop;
        return;
      }
      totalChunks.incrementAndGet();
      try {
        inFlight.acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while uploading", e);
      }
      FutureTask<Void> task = new FutureTask<>(() -> {
        try {
          storeChunk(chunkSha, chunk);
        } finally {
          inFlight.release();
        }
        return null;
      });
      pending.add(task);
      try {
        uploads.execute(task);
      } catch (RuntimeException e) {
        inFlight.release();
        throw e;
      }
      failFast();
    }

    private void storeChunk(String chunkSha, byte[] chunk) {
      String key = Layout.chunkKey(source.cluster(), source.group(), chunkSha);
      if (known.stored(chunkSha, chunk.length)) {
        return; // de-duplicated: stored for an earlier generation
      }
      if (known.headUnknown() && store.head(key).filter(info -> info.size() == chunk.length).isPresent()) {
        return; // de-duplicated: stored by an older generation
      }
      if (store.putIfAbsent(key, Content.of(chunk)) == PutOutcome.CREATED) {
        uploadedBytes.addAndGet(chunk.length);
        uploadedChunks.incrementAndGet();
      }
    }

    /** Surfaces the first failed upload without waiting for the rest. */
    private void failFast() throws IOException {
      for (Future<?> future : pending) {
        if (future.isDone()) {
          get(future);
        }
      }
      pending.removeIf(Future::isDone);
    }

    void awaitAll() throws IOException {
      for (Future<?> future : pending) {
        get(future);
      }
      pending.clear();
    }

    private void get(Future<?> future) throws IOException {
      try {
        future.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while uploading", e);
      } catch (ExecutionException e) {
        awaitQuietly();
        if (e.getCause() instanceof RuntimeException runtime) {
          throw runtime;
        }
        throw new IOException(e.getCause());
      }
    }

    /** Lets every upload end, ignoring failures, so none outlives the publish. */
    void awaitQuietly() {
      for (Future<?> future : pending) {
        try {
          future.get();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        } catch (ExecutionException ignored) {
          // the first failure is the one reported
        }
      }
    }
  }
}
