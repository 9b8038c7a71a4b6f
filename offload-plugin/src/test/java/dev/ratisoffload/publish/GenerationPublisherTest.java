package dev.ratisoffload.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.format.ChunkingPolicy;
import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.StoreUnavailableException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The publisher alone, over a directory store; the Ratis end-to-end tests cover S3 too. */
class GenerationPublisherTest {

  private static final ChunkingPolicy CHUNKS = ChunkingPolicy.ofAverage(16 * 1024);
  private static final Fence OPEN = () -> null;

  @TempDir
  Path dir;

  private ExecutorService uploads;
  private FaultyStore store;
  private GenerationPublisher publisher;
  private final String group = UUID.randomUUID().toString();

  @BeforeEach
  void setUp() {
    uploads = Executors.newFixedThreadPool(4);
    store = new FaultyStore(new DirectoryObjectStore(dir.resolve("store")));
    publisher = new GenerationPublisher(store, CHUNKS, uploads, 8, Clock.systemUTC());
  }

  @AfterEach
  void tearDown() {
    uploads.shutdownNow();
  }

  private SnapshotSource source(long index, Path... files) {
    List<SnapshotSource.PinnedFile> pinned = java.util.Arrays.stream(files)
        .map(f -> new SnapshotSource.PinnedFile("sm/" + f.getFileName(), f, null)).toList();
    return new SnapshotSource("c1", group, 2, index, List.of(new Manifest.Peer("n0", "127.0.0.1:1")),
        new Manifest.Publisher("n0", 2), pinned);
  }

  private Path file(String name, byte[] content) throws IOException {
    Path path = dir.resolve(name);
    Files.write(path, content);
    return path;
  }

  private static byte[] random(int size, long seed) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  /**
   * Uploads still queued when the offload closes are dropped by its executor: the publish must not wait
   * for them (it ends, skipped) and writes no manifest.
   */
  @Test
  void uploadsDroppedAsTheOffloadClosesEndThePublish() throws Exception {
    ThreadPoolExecutor oneThread = oneUploadThread();
    AtomicReference<SkipReason> fence = new AtomicReference<>();
    CompletableFuture<PublishResult> result;
    try {
      result = publishWithUploadsQueued(oneThread, fence::get, 12);
      fence.set(SkipReason.CLOSED);
      GenerationPublisher.stopUploads(oneThread);
    } finally {
      store.release();
      oneThread.shutdownNow();
    }

    PublishResult ended = result.get(30, TimeUnit.SECONDS);
    assertInstanceOf(PublishResult.Skipped.class, ended);
    assertTrue(store.list(Layout.manifestPrefix("c1", group)).isEmpty(), "no manifest");
  }

  /**
   * A fence that closes (here, leadership lost) while uploads are queued: they store nothing, so that a
   * deposed leader or a closing offload waits only for the upload already running.
   */
  @Test
  void uploadsQueuedWhenTheFenceClosesStoreNothing() throws Exception {
    ThreadPoolExecutor oneThread = oneUploadThread();
    AtomicReference<SkipReason> fence = new AtomicReference<>();
    try {
      CompletableFuture<PublishResult> result = publishWithUploadsQueued(oneThread, fence::get, 13);
      fence.set(SkipReason.LEADERSHIP_LOST);
      store.release();

      PublishResult ended = result.get(30, TimeUnit.SECONDS);
      assertEquals(SkipReason.LEADERSHIP_LOST, assertInstanceOf(PublishResult.Skipped.class, ended).reason());
      assertEquals(1, store.puts(), "only the upload that was running stored its chunk");
      assertTrue(store.list(Layout.manifestPrefix("c1", group)).isEmpty(), "no manifest");
    } finally {
      store.release();
      oneThread.shutdownNow();
    }
  }

  /**
   * The upload running when the offload closes fails, its request interrupted: the publish ends skipped,
   * as a close stops it, not failed as a store error would make it.
   */
  @Test
  void anUploadInterruptedAsTheOffloadClosesEndsThePublishSkipped() throws Exception {
    ThreadPoolExecutor oneThread = oneUploadThread();
    AtomicReference<SkipReason> fence = new AtomicReference<>();
    try {
      // Smaller than the least chunk: one upload, already submitted, so only its failure ends the publish.
      CompletableFuture<PublishResult> result =
          publishWithFirstPutHeld(oneThread, fence::get, file("one-chunk", random(1_000, 6)), 14);
      fence.set(SkipReason.CLOSED);
      GenerationPublisher.stopUploads(oneThread);

      PublishResult ended = result.get(30, TimeUnit.SECONDS);
      assertEquals(SkipReason.CLOSED, assertInstanceOf(PublishResult.Skipped.class, ended).reason());
      assertEquals(0, store.puts(), "the interrupted put stored nothing");
      assertTrue(store.list(Layout.manifestPrefix("c1", group)).isEmpty(), "no manifest");
    } finally {
      store.release();
      oneThread.shutdownNow();
    }
  }

  private static ThreadPoolExecutor oneUploadThread() {
    return new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>());
  }

  /** Starts a publish whose first put the store holds, and returns once other uploads queue behind it. */
  private CompletableFuture<PublishResult> publishWithUploadsQueued(ThreadPoolExecutor oneThread, Fence fence,
      long index) throws Exception {
    CompletableFuture<PublishResult> result =
        publishWithFirstPutHeld(oneThread, fence, file("queued-" + index, random(400_000, 5)), index);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (oneThread.getQueue().isEmpty()) {
      assertTrue(System.nanoTime() < deadline, "uploads queued behind the held one");
      Thread.onSpinWait();
    }
    return result;
  }

  /** Starts publishing {@code file} on the given upload threads, and returns once its first put is held. */
  private CompletableFuture<PublishResult> publishWithFirstPutHeld(ThreadPoolExecutor uploadThreads, Fence fence,
      Path file, long index) throws Exception {
    GenerationPublisher publishing = new GenerationPublisher(store, CHUNKS, uploadThreads, 8, Clock.systemUTC());
    SnapshotSource snapshot = source(index, file);
    store.holdPuts();
    CompletableFuture<PublishResult> result = CompletableFuture.supplyAsync(() -> {
      try {
        return publishing.publish(snapshot, fence);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    assertTrue(store.awaitHeldPut(30), "the first upload started");
    return result;
  }

  @Test
  void publishesAVerifiableGeneration() throws IOException {
    byte[] a = random(300_000, 1);
    PublishResult result = publisher.publish(source(10, file("a", a), file("b", new byte[0])), OPEN);
    PublishResult.Published published = assertInstanceOf(PublishResult.Published.class, result);
    assertEquals(300_000, published.totalBytes());
    assertEquals(300_000, published.uploadedBytes());
    Manifest manifest = new GenerationReader(store).verify(published.id());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new GenerationReader(store).readFile(manifest, manifest.files().get(0), out);
    assertTrue(java.util.Arrays.equals(a, out.toByteArray()));
    assertTrue(manifest.files().get(0).chunks().size() > 4, "the file was chunked");
  }

  /**
   * Chunks of the default sizes (up to 4 MiB) are hashed in several slices of
   * {@link DigestLanes#DIGEST_SLICE}: the reader's independent digests must agree with them.
   */
  @Test
  void chunksLargerThanADigestSliceAreHashedWhole() throws IOException {
    GenerationPublisher defaults = new GenerationPublisher(store, ChunkingPolicy.defaults(), uploads, 8,
        Clock.systemUTC());
    byte[] a = random(9 * 1024 * 1024 + 17, 3);
    PublishResult.Published published = assertInstanceOf(PublishResult.Published.class,
        defaults.publish(source(12, file("big", a)), OPEN));
    Manifest manifest = new GenerationReader(store).verify(published.id()); // chunk and file SHA-256, MD5
    assertTrue(manifest.files().get(0).chunks().stream()
        .anyMatch(c -> c.size() > 2 * DigestLanes.DIGEST_SLICE), "a chunk spans several slices");
  }

  /** A store that checks a declared SHA-256 (S3 does) refuses a chunk whose bytes changed after hashing. */
  @Test
  void everyChunkIsDeclaredWithItsSha256AndNothingElseIs() throws IOException {
    PublishResult result = publisher.publish(source(11, file("a", random(500_000, 9))), OPEN);
    Manifest manifest = new GenerationReader(store).verify(assertInstanceOf(PublishResult.Published.class, result)
        .id());
    Map<String, String> declared = store.declaredSha256();
    List<String> chunkShas = manifest.files().get(0).chunks().stream().map(Manifest.ChunkRef::sha256).toList();
    assertEquals(Set.copyOf(chunkShas).size(), declared.size(), "one declaration per chunk, none for the manifest");
    declared.forEach((key, sha) -> assertTrue(key.endsWith("/" + sha) && chunkShas.contains(sha), key));
  }

  @Test
  void aSmallChangeUploadsOnlyTheChangedChunks() throws IOException {
    byte[] a = random(1_000_000, 2);
    publisher.publish(source(10, file("a", a)), OPEN);
    a[500_000] ^= 1;
    PublishResult.Published second = assertInstanceOf(PublishResult.Published.class,
        publisher.publish(source(11, file("a", a)), OPEN));
    assertTrue(second.uploadedBytes() <= 4 * CHUNKS.max(), "uploaded " + second.uploadedBytes());
    new GenerationReader(store).verify(second.id());
  }

  /**
   * A chunk of an earlier generation deleted from the store (a lifecycle rule, a mistaken delete) is
   * uploaded again by the next publish that contains it, instead of being trusted because the earlier
   * manifest names it.
   */
  @Test
  void aChunkDeletedFromTheStoreIsUploadedAgainByTheNextPublish() throws IOException {
    byte[] a = random(1_000_000, 7);
    PublishResult.Published first = assertInstanceOf(PublishResult.Published.class,
        publisher.publish(source(10, file("a", a)), OPEN));
    Manifest.ChunkRef lost = new GenerationReader(store).readManifest(first.id()).files().get(0).chunks().get(0);
    store.delete(Layout.chunkKey("c1", group, lost.sha256()));
    a[a.length - 1] ^= 1;
    PublishResult.Published second = assertInstanceOf(PublishResult.Published.class,
        publisher.publish(source(11, file("a", a)), OPEN));
    assertTrue(store.head(Layout.chunkKey("c1", group, lost.sha256())).isPresent(), "the lost chunk is back");
    assertTrue(second.uploadedBytes() >= lost.size(), "uploaded " + second.uploadedBytes());
    new GenerationReader(store).verify(second.id());
    new GenerationReader(store).verify(first.id());
  }

  @Test
  void aClosedFenceWritesNoManifest() throws IOException {
    PublishResult result = publisher.publish(source(10, file("a", random(200_000, 3))),
        () -> SkipReason.LEADERSHIP_LOST);
    assertEquals(SkipReason.LEADERSHIP_LOST, assertInstanceOf(PublishResult.Skipped.class, result).reason());
    assertEquals(List.of(), store.list(Layout.MANIFESTS));
  }

  @Test
  void aStoreFailingMidUploadLeavesNoManifestAndTheRetryReusesChunks() throws IOException {
    Path a = file("a", random(500_000, 4));
    store.failPutsAfter(5);
    assertThrows(StoreUnavailableException.class, () -> publisher.publish(source(10, a), OPEN));
    assertEquals(List.of(), store.list(Layout.MANIFESTS));
    int storedBefore = store.list(Layout.CHUNKS).size();
    assertTrue(storedBefore >= 1, "some chunks were stored before the failure");
    store.heal();
    PublishResult.Published retry = assertInstanceOf(PublishResult.Published.class,
        publisher.publish(source(10, a), OPEN));
    assertTrue(retry.uploadedChunks() <= retry.totalChunks() - storedBefore,
        "reused " + storedBefore + " chunks: " + retry);
    new GenerationReader(store).verify(retry.id());
  }

  @Test
  void aCorruptLocalSnapshotIsNotPublished() throws IOException {
    Path a = file("a", random(1000, 5));
    SnapshotSource wrongMd5 = new SnapshotSource("c1", group, 2, 10, List.of(new Manifest.Peer("n0", "h:1")),
        new Manifest.Publisher("n0", 2),
        List.of(new SnapshotSource.PinnedFile("sm/a", a, "00000000000000000000000000000000")));
    IOException e = assertThrows(IOException.class, () -> publisher.publish(wrongMd5, OPEN));
    assertTrue(e.getMessage().contains("corrupt"), e.getMessage());
    assertEquals(List.of(), store.list(Layout.MANIFESTS));
  }
}
