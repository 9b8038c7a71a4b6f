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
import dev.ratisoffload.store.ObjectStore.PutOutcome;
import dev.ratisoffload.store.ObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
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
    this(store, chunking, uploads, maxChunksInFlight, clock, BandwidthBudget.unlimited(),
        new GroupActivity(store, GroupActivity.DEFAULT_CHUNK_GRACE));
  }

  /**
   * @param uploads runs chunk uploads; its parallelism is the upload parallelism
   * @param maxChunksInFlight chunks read but not yet stored; bounds memory to this many maximal chunks
   * @param budget paces the reading of snapshot files, and so everything done with what is read
   * @param activity how publishes and garbage collection of a group see each other (its chunk grace)
   */
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
        if (upload.tasks.stopped() != null) {
          upload.tasks.awaitQuietly();
          return new PublishResult.Skipped(upload.tasks.stopped(), "stopped while uploading " + file.path());
        }
        pendingFiles.add(pending);
      }
      upload.tasks.awaitAll();
      if (upload.tasks.stopped() != null) {
        return new PublishResult.Skipped(upload.tasks.stopped(), "stopped while uploading chunks");
      }
      List<Manifest.FileEntry> files = new ArrayList<>();
      for (PendingFile pending : pendingFiles) {
        files.add(pending.entry());
      }
      Manifest manifest = new Manifest(Manifest.FORMAT_VERSION, source.cluster(), source.group(),
          source.term(), source.index(), source.peers(), source.publisher(),
          Instant.now(clock).truncatedTo(ChronoUnit.MILLIS), ToolVersion.get(), files);
      return writeManifest(id, manifest, fence, intent, upload, started);
    }
  }

  /** The last check before the generation becomes visible, and the manifest: a deposed leader must not publish. */
  private PublishResult writeManifest(GenerationId id, Manifest manifest, Fence fence, GroupActivity.Claim intent,
      Upload upload, long started) {
    byte[] encoded = ManifestCodec.encode(manifest);
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

  /** Ends the reading of a file once the fence has stopped the publish. */
  private static final class Stopped extends IOException {
    Stopped() {
      super("stopped by the fence");
    }
  }

  /**
   * One publish's chunks: this thread reads each file and finds chunk boundaries; each chunk is then
   * uploaded (and its SHA-256 computed) on the upload threads, while the whole file's digests are
   * computed on {@link DigestLanes}. A chunk stays in memory (and counts against the bound) until it is
   * stored (or its upload skipped, the fence closed) and both digests have taken it in.
   */
  private final class Upload implements AutoCloseable {
    private final SnapshotSource source;
    private final StoredChunks stored;
    private final UploadTasks tasks;
    private final DigestLanes digests = new DigestLanes();
    /** One for all the files: its window is reused, not allocated for each file. */
    private final Chunker chunker = new Chunker(chunking);
    private final ChunkBuffers buffers = new ChunkBuffers(maxChunksInFlight);
    private final AtomicLong uploadedBytes = new AtomicLong();
    private final AtomicInteger uploadedChunks = new AtomicInteger();
    private final AtomicInteger totalChunks = new AtomicInteger();

    Upload(SnapshotSource source, Fence fence, StoredChunks stored) {
      this.source = source;
      this.stored = stored;
      this.tasks = new UploadTasks(uploads, fence);
    }

    /** Reads one file and hands out its chunks; null once the fence has stopped the publish. */
    PendingFile file(SnapshotSource.PinnedFile file) throws IOException {
      PendingFile pending = new PendingFile(file, digests.startFile());
      // Arrays for chunks: as large as the largest chunk, or the file when it is smaller.
      int bufferSize = (int) Math.min(chunking.max(), Math.max(1, Files.size(file.pinned())));
      try (InputStream in = budgeted(Files.newInputStream(file.pinned()))) {
        chunker.split(in, new Chunker.BufferSink() {
          @Override
          public byte[] buffer(int length) throws IOException {
            return buffers.take(Math.max(length, bufferSize));
          }

          @Override
          public void accept(byte[] chunk, int length) throws IOException {
            submit(pending, chunk, length);
            if (tasks.stopped() != null) {
              throw new Stopped();
            }
          }
        });
      } catch (Stopped stop) {
        return null; // the caller sees the stop; this file's entry is never used
      }
      pending.digests().finish();
      return pending;
    }

    private InputStream budgeted(InputStream in) {
      return budget.isLimited() ? new BudgetedInputStream(in, budget) : in;
    }

    private void submit(PendingFile file, byte[] chunk, int length) throws IOException {
      if (tasks.fenceClosed()) {
        buffers.giveBack(chunk);
        return;
      }
      totalChunks.incrementAndGet();
      Runnable release = buffers.sharedBy(3, chunk); // the upload and the two file digests
      FutureTask<String> upload = new FutureTask<>(() -> {
        if (tasks.fenceClosed()) {
          return null; // queued when the fence closed: a stop waits for running uploads only
        }
        String chunkSha = Hashes.hex(DigestLanes.digestInSlices(Hashes.sha256(), chunk, length).digest());
        storeChunk(chunkSha, chunk, length);
        return chunkSha;
      }) {
        @Override
        protected void done() {
          release.run(); // however the upload ended: stored, skipped, failed, or cancelled before it started
        }
      };
      file.addChunk(upload, length);
      file.digests().add(chunk, length, release);
      tasks.start(upload);
    }

    private void storeChunk(String chunkSha, byte[] chunk, int length) {
      if (stored.contains(chunkSha, length)) {
        return; // de-duplicated: seen stored as the publish started
      }
      // Declared with its SHA-256 so that a store that checks it refuses bytes changed after hashing.
      Content bytes = Content.ofRange(chunk, 0, length).withSha256(HexFormat.of().parseHex(chunkSha));
      if (store.putIfAbsent(Layout.chunkKey(source.cluster(), source.group(), chunkSha), bytes)
          == PutOutcome.CREATED) {
        uploadedBytes.addAndGet(length);
        uploadedChunks.incrementAndGet();
      }
    }

    @Override
    public void close() {
      digests.close();
    }
  }
}
