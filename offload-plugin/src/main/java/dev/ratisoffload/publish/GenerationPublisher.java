package dev.ratisoffload.publish;

import dev.ratisoffload.activity.GroupActivity;
import dev.ratisoffload.format.Chunker;
import dev.ratisoffload.format.ChunkingPolicy;
import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.format.ManifestCodec;
import dev.ratisoffload.primitives.Hashes;
import dev.ratisoffload.primitives.ToolVersion;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.ObjectConflictException;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore.PutOutcome;
import dev.ratisoffload.store.ObjectStore;
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
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Turns a pinned snapshot into a generation: splits each file into content-defined chunks while
 * hashing it, uploads the chunks the store lacks (in parallel, with a bounded number in memory), and
 * writes the manifest last, with put-if-absent, only if the {@link Fence} still allows it. A generation
 * therefore exists exactly when its manifest does, and every chunk it names was stored before it.
 * Snapshot files are read within a {@link BandwidthBudget}, which paces everything done with their bytes.
 * A publish announces itself to garbage collection ({@link GroupActivity}) before it lists the chunks it
 * will re-use, so that no sweep deletes one of them before its manifest is written.
 */
public final class GenerationPublisher {

  /** How much of a chunk is hashed between two yields of the CPU (see {@code Upload.digest}). */
  static final int DIGEST_SLICE = 256 * 1024;

  private final ObjectStore store;
  private final ChunkingPolicy chunking;
  private final Executor uploads;
  private final int maxChunksInFlight;
  private final Clock clock;
  private final BandwidthBudget budget;
  private final GroupActivity activity;

  /** A publisher without a bandwidth budget. */
  public GenerationPublisher(ObjectStore store, ChunkingPolicy chunking, Executor uploads,
      int maxChunksInFlight, Clock clock) {
    this(store, chunking, uploads, maxChunksInFlight, clock, BandwidthBudget.unlimited());
  }

  /**
   * @param uploads runs chunk uploads; its parallelism is the upload parallelism
   * @param maxChunksInFlight chunks read but not yet stored; bounds memory to this many maximal chunks
   * @param budget paces the reading of snapshot files, and so everything done with what is read
   */
  public GenerationPublisher(ObjectStore store, ChunkingPolicy chunking, Executor uploads,
      int maxChunksInFlight, Clock clock, BandwidthBudget budget) {
    this(store, chunking, uploads, maxChunksInFlight, clock, budget,
        new GroupActivity(store, GroupActivity.DEFAULT_CHUNK_GRACE));
  }

  /** @param activity how publishes and garbage collection of a group see each other (its chunk grace) */
  public GenerationPublisher(ObjectStore store, ChunkingPolicy chunking, Executor uploads,
      int maxChunksInFlight, Clock clock, BandwidthBudget budget, GroupActivity activity) {
    this.store = store;
    this.chunking = chunking;
    this.uploads = uploads;
    this.maxChunksInFlight = maxChunksInFlight;
    this.clock = clock;
    this.budget = budget;
    this.activity = activity;
  }

  /**
   * Stops an upload executor: no upload starts after this, running ones are interrupted, and queued
   * ones are cancelled, so that a publish waiting for them ends instead of waiting forever. For an
   * executor whose queue holds the tasks as submitted (a {@code ThreadPoolExecutor}, as the offload's
   * is); close the publish's fence first, so that the publish ends as skipped.
   */
  public static void stopUploads(ExecutorService uploads) {
    for (Runnable dropped : uploads.shutdownNow()) {
      if (dropped instanceof Future<?> upload) {
        upload.cancel(false); // never started: its chunk is given back (FutureTask.done) and get() returns
      }
    }
  }

  /**
   * Publishes the snapshot. Store errors propagate as {@link dev.ratisoffload.store.StoreException}s
   * (no manifest is written then), among them a {@link dev.ratisoffload.activity.GroupActivityException}
   * when a sweep of the group outlasts the wait or the publish outlasts half of the chunk grace; a fence
   * that closes yields {@link PublishResult.Skipped}.
   */
  public PublishResult publish(SnapshotSource source, Fence fence) throws IOException {
    long started = System.nanoTime();
    GenerationId id = new GenerationId(source.cluster(), source.group(), source.term(), source.index());
    // The intent first, then the listing of chunks: a sweep either sees the intent or has ended.
    Optional<GroupActivity.Claim> announced = activity.announcePublish(source.cluster(), source.group(),
        "publish of index " + source.index() + " by peer " + source.publisher().peer(),
        () -> fence.check() != null);
    if (announced.isEmpty()) {
      return new PublishResult.Skipped(Objects.requireNonNullElse(fence.check(), SkipReason.CLOSED),
          "stopped while waiting for a garbage collection sweep of the group");
    }
    try (GroupActivity.Claim intent = announced.get()) {
      return publish(source, fence, id, started, intent);
    }
  }

  /** The publish once its intent is stored and no sweep runs: from the listing of chunks to the manifest. */
  private PublishResult publish(SnapshotSource source, Fence fence, GenerationId id, long started,
      GroupActivity.Claim intent) throws IOException {
    StoredChunks stored = StoredChunks.list(store, source);
    try (Upload upload = new Upload(source, fence, stored)) {
      List<PendingFile> pendingFiles = new ArrayList<>();
      for (SnapshotSource.PinnedFile file : source.files()) {
        PendingFile pending = upload.file(file);
        if (upload.stopped != null) {
          upload.awaitQuietly();
          return new PublishResult.Skipped(upload.stopped, "stopped while uploading " + file.path());
        }
        pendingFiles.add(pending);
      }
      upload.awaitAll();
      if (upload.stopped != null) {
        return new PublishResult.Skipped(upload.stopped, "stopped while uploading chunks");
      }
      List<Manifest.FileEntry> files = new ArrayList<>();
      for (PendingFile pending : pendingFiles) {
        files.add(pending.entry());
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
        intent.requireTimeLeft(); // else a sweep may already treat the intent as abandoned
        try {
          store.putIfAbsent(id.manifestKey(), Content.of(encoded));
        } catch (ObjectConflictException e) {
          // Published before (a scrub found chunks of it damaged): this publish stored again what was
          // missing, which heals it if the stored manifest names the same files.
          if (!new GenerationReader(store).readManifest(id).files().equals(manifest.files())) {
            throw e;
          }
        }
        return new PublishResult.Published(id, id.manifestKey(), upload.uploadedBytes.get(),
            manifest.totalBytes(), upload.uploadedChunks.get(), upload.totalChunks.get(),
            Duration.ofNanos(System.nanoTime() - started));
      });
    }
  }

  /** Ends the reading of a file once the fence has stopped the publish. */
  private static final class Stopped extends IOException {
    Stopped() {
      super("stopped by the fence");
    }
  }

  /**
   * The chunks the group's store holds as the publish starts (SHA-256 to size), from one paged listing
   * of the group's chunk tree: a chunk is skipped only when it was seen stored, never because a manifest
   * names it, so a chunk deleted from the store (a lifecycle rule, a mistaken delete) is uploaded again
   * by the next publish instead of being inherited as a hole. A listing that fails fails the publish.
   */
  private record StoredChunks(Map<String, Long> sizes) {

    static StoredChunks list(ObjectStore store, SnapshotSource source) {
      Map<String, Long> sizes = new HashMap<>();
      for (ObjectInfo object : store.list(Layout.chunkPrefix(source.cluster(), source.group()))) {
        sizes.put(object.key().substring(object.key().lastIndexOf('/') + 1), object.size());
      }
      return new StoredChunks(sizes);
    }

    boolean contains(String sha256, int size) {
      Long stored = sizes.get(sha256);
      return stored != null && stored == size;
    }
  }

  /** The state of one publish: chunks in flight, counters, and whether the fence stopped it. */
  private final class Upload implements AutoCloseable {
    private final SnapshotSource source;
    private final Fence fence;
    private final StoredChunks stored;
    /** Each runs one digest of the files, chunk after chunk in order. */
    private final ExecutorService shaLane = Executors.newSingleThreadExecutor(daemon("offload-digest-sha256"));
    private final ExecutorService md5Lane = Executors.newSingleThreadExecutor(daemon("offload-digest-md5"));
    /** One for all the files: its window is reused, not allocated for each file. */
    private final Chunker chunker = new Chunker(chunking);
    private final Semaphore inFlight = new Semaphore(maxChunksInFlight);
    /** Arrays of stored chunks, for the next chunks. */
    private final java.util.concurrent.ConcurrentLinkedQueue<byte[]> free =
        new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final List<Future<?>> pending = new ArrayList<>();
    private final AtomicLong uploadedBytes = new AtomicLong();
    private final AtomicInteger uploadedChunks = new AtomicInteger();
    private final AtomicInteger totalChunks = new AtomicInteger();
    private volatile SkipReason stopped;

    Upload(SnapshotSource source, Fence fence, StoredChunks stored) {
      this.source = source;
      this.fence = fence;
      this.stored = stored;
    }

    /**
     * Reads one file and hands out its chunks: each is uploaded (and its SHA-256 computed) on the upload
     * threads, while the whole file's SHA-256 and MD5 are computed in order on two threads of their own,
     * so that this thread only reads and finds boundaries. A chunk stays in memory (and counts against
     * the bound) until it is stored (or its upload skipped, the fence closed) and both digests have
     * taken it in.
     */
    PendingFile file(SnapshotSource.PinnedFile file) throws IOException {
      PendingFile pending = new PendingFile(file);
      // Arrays for chunks: as large as the largest chunk, or the file when it is smaller.
      int bufferSize = (int) Math.min(chunking.max(), Math.max(1, Files.size(file.pinned())));
      try (InputStream in = budgeted(Files.newInputStream(file.pinned()))) {
        chunker.split(in, new Chunker.BufferSink() {
          @Override
          public byte[] buffer(int length) throws IOException {
            return take(Math.max(length, bufferSize));
          }

          @Override
          public void accept(byte[] chunk, int length) throws IOException {
            pending.size += length;
            submit(pending, chunk, length);
            if (stopped != null) {
              throw new Stopped();
            }
          }
        });
      } catch (Stopped stop) {
        return null; // the caller sees `stopped`; this file's entry is never used
      }
      pending.shaHex = shaLane.submit(() -> Hashes.hex(pending.sha.digest()));
      pending.md5Hex = md5Lane.submit(() -> Hashes.hex(pending.md5.digest()));
      return pending;
    }

    private InputStream budgeted(InputStream in) {
      return budget.isLimited() ? new BudgetedInputStream(in, budget) : in;
    }

    /**
     * An array of at least {@code size} bytes: one that a stored chunk gave back, or a new one. Arrays
     * in use are bounded by the chunks in flight, so the publish allocates a few arrays instead of one
     * per chunk (chunks of a quarter to four megabytes are large objects for the garbage collector).
     */
    private byte[] take(int size) throws IOException {
      try {
        inFlight.acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while uploading", e);
      }
      byte[] buffer = free.poll();
      return buffer != null && buffer.length >= size ? buffer : new byte[size];
    }

    /** Gives back the array of a chunk that is stored and digested, and its place in flight. */
    private void giveBack(byte[] buffer) {
      free.offer(buffer);
      inFlight.release();
    }

    /**
     * Adds the chunk to a digest in slices of {@value #DIGEST_SLICE} bytes, yielding the CPU between them:
     * a publish runs beside Raft's threads, and one that wakes meanwhile (a write to append, replicate,
     * apply) then gets the CPU within a slice instead of waiting for the digest of a whole chunk of up to
     * 4 MiB; on an idle CPU the yield returns at once.
     */
    private static MessageDigest digest(MessageDigest digest, byte[] chunk, int length) {
      for (int offset = 0; offset < length; offset += DIGEST_SLICE) {
        digest.update(chunk, offset, Math.min(DIGEST_SLICE, length - offset));
        Thread.yield();
      }
      return digest;
    }

    private void submit(PendingFile file, byte[] chunk, int length) throws IOException {
      SkipReason stop = fence.check();
      if (stop != null) {
        stopped = stop;
        giveBack(chunk);
        return;
      }
      totalChunks.incrementAndGet();
      AtomicInteger holders = new AtomicInteger(3); // the upload and the two file digests
      Runnable release = () -> {
        if (holders.decrementAndGet() == 0) {
          giveBack(chunk);
        }
      };
      FutureTask<String> task = new FutureTask<>(() -> {
        SkipReason stopNow = fence.check();
        if (stopNow != null) {
          stopped = stopNow; // queued when the fence closed: a stop waits for running uploads only
          return null;
        }
        String chunkSha = Hashes.hex(digest(Hashes.sha256(), chunk, length).digest());
        storeChunk(chunkSha, chunk, length);
        return chunkSha;
      }) {
        @Override
        protected void done() {
          release.run(); // however the upload ended: stored, skipped, failed, or cancelled before it started
        }
      };
      file.chunks.add(task);
      file.sizes.add(length);
      pending.add(task);
      shaLane.execute(() -> {
        try {
          digest(file.sha, chunk, length);
        } finally {
          release.run();
        }
      });
      md5Lane.execute(() -> {
        try {
          digest(file.md5, chunk, length);
        } finally {
          release.run();
        }
      });
      try {
        uploads.execute(task);
      } catch (RejectedExecutionException e) {
        task.cancel(false);
        if (!stopForClose()) {
          throw e;
        }
        return;
      } catch (RuntimeException e) {
        task.cancel(false);
        throw e;
      }
      failFast();
    }

    private void storeChunk(String chunkSha, byte[] chunk, int length) {
      String key = Layout.chunkKey(source.cluster(), source.group(), chunkSha);
      if (stored.contains(chunkSha, length)) {
        return; // de-duplicated: seen stored as the publish started
      }
      // Declared with its SHA-256 so that a store that checks it refuses bytes changed after hashing.
      Content bytes = Content.ofRange(chunk, 0, length).withSha256(HexFormat.of().parseHex(chunkSha));
      if (store.putIfAbsent(key, bytes) == PutOutcome.CREATED) {
        uploadedBytes.addAndGet(length);
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
      } catch (CancellationException e) {
        if (!stopForClose()) {
          throw new IOException("an upload was cancelled while the publish was not stopped", e);
        }
      } catch (ExecutionException e) {
        if (stopForClose()) {
          return; // failed because the offload closed (an interrupted request): a stop, not a store error
        }
        awaitQuietly();
        if (e.getCause() instanceof RuntimeException runtime) {
          throw runtime;
        }
        throw new IOException(e.getCause());
      }
    }

    /**
     * The offload closing stops its uploads (cancelled, refused, or interrupted mid-request): the
     * publish then stops as a closed fence stops it, a skip rather than a failure, once the other
     * uploads have ended. False when the fence is still open (then it is not a close, and the caller
     * reports it as an error).
     */
    private boolean stopForClose() {
      SkipReason stop = fence.check();
      if (stop == null) {
        return false;
      }
      awaitQuietly();
      stopped = stop;
      return true;
    }

    /** Lets every upload end, ignoring failures, so none outlives the publish. */
    void awaitQuietly() {
      for (Future<?> future : pending) {
        try {
          future.get();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        } catch (ExecutionException | CancellationException ignored) {
          // the first failure is the one reported
        }
      }
    }

    @Override
    public void close() {
      shaLane.shutdownNow();
      md5Lane.shutdownNow();
    }
  }

  /** A file being published: its chunks' uploads, and its digests being computed. */
  private static final class PendingFile {
    private final SnapshotSource.PinnedFile file;
    private final MessageDigest sha = Hashes.sha256();
    private final MessageDigest md5 = Hashes.md5();
    /** Each chunk's SHA-256 once stored; null for an upload skipped because the fence had closed. */
    private final List<Future<String>> chunks = new ArrayList<>();
    private final List<Integer> sizes = new ArrayList<>();
    private long size;
    private Future<String> shaHex;
    private Future<String> md5Hex;

    PendingFile(SnapshotSource.PinnedFile file) {
      this.file = file;
    }

    /**
     * The manifest's entry, once every chunk is stored (no upload skipped: the publish stops before
     * this when one was); checks the MD5 Ratis recorded.
     */
    Manifest.FileEntry entry() throws IOException {
      String md5 = done(md5Hex);
      if (file.expectedMd5() != null && !file.expectedMd5().equals(md5)) {
        throw new IOException("snapshot file " + file.path() + " has MD5 " + md5
            + " but Ratis recorded " + file.expectedMd5()
            + ": the local snapshot is corrupt; it was not published");
      }
      List<Manifest.ChunkRef> refs = new ArrayList<>();
      for (int i = 0; i < chunks.size(); i++) {
        String chunkSha = done(chunks.get(i));
        if (chunkSha == null) {
          throw new IllegalStateException("chunk " + i + " of " + file.path() + " was not uploaded");
        }
        refs.add(new Manifest.ChunkRef(chunkSha, sizes.get(i)));
      }
      return new Manifest.FileEntry(file.path(), size, done(shaHex), file.expectedMd5() == null ? null : md5, refs);
    }

    private static String done(Future<String> future) throws IOException {
      try {
        return future.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while hashing", e);
      } catch (ExecutionException e) {
        throw new IOException("hashing failed: " + e.getCause(), e.getCause());
      }
    }
  }

  private static ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
