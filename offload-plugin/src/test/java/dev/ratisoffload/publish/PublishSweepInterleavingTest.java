package dev.ratisoffload.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.format.ChunkingPolicy;
import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.primitives.Hashes;
import dev.ratisoffload.retention.GarbageCollector;
import dev.ratisoffload.retention.RetentionPolicy;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ForwardingObjectStore;
import dev.ratisoffload.store.ObjectInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A publish that re-uses a stored chunk no generation references, and a garbage collection sweep of the
 * group, in the two orders that could lose the chunk: the store holds one side at a chosen request until
 * the other has done its part. Either way the new generation verifies.
 */
class PublishSweepInterleavingTest {

  private static final ChunkingPolicy CHUNKS = ChunkingPolicy.ofAverage(16 * 1024);
  private static final RetentionPolicy KEEP_ONE = new RetentionPolicy(1, Duration.ZERO, 0, 0, 0, 0,
      Duration.ofMinutes(10));
  private static final Fence OPEN = () -> null;

  @TempDir
  Path dir;

  private final String group = UUID.randomUUID().toString();
  private ExecutorService uploads;
  private SteppedStore store;
  private GenerationPublisher publisher;
  /** A small file, so one chunk: stored before the test as a leftover no generation references. */
  private Path reappearing;

  @BeforeEach
  void setUp() throws Exception {
    uploads = Executors.newFixedThreadPool(2);
    store = new SteppedStore(new DirectoryObjectStore(dir.resolve("store")));
    publisher = new GenerationPublisher(store, CHUNKS, uploads, 4, Clock.systemUTC());
    byte[] content = new byte[2_000];
    new Random(7).nextBytes(content);
    reappearing = Files.write(dir.resolve("reappearing"), content);
    store.putIfAbsent(Layout.chunkKey("c1", group, Hashes.sha256Hex(content)), Content.of(content));
    Path other = Files.writeString(dir.resolve("other"), "another state");
    assertInstanceOf(PublishResult.Published.class, publisher.publish(source(100, other), OPEN));
  }

  @AfterEach
  void tearDown() {
    uploads.shutdownNow();
  }

  private SnapshotSource source(long index, Path file) {
    return new SnapshotSource("c1", group, 2, index, List.of(new Manifest.Peer("n0", "127.0.0.1:1")),
        new Manifest.Publisher("n0", 2),
        List.of(new SnapshotSource.PinnedFile("sm/" + file.getFileName(), file, null)));
  }

  private GarbageCollector.GcReport sweep() {
    return new GarbageCollector(store).collect("c1", group, KEEP_ONE, true);
  }

  private void assertEveryGenerationVerifies() {
    GenerationReader reader = new GenerationReader(store);
    for (var g : reader.list(Layout.manifestPrefix("c1", group))) {
      reader.verify(g.id());
    }
    assertTrue(store.list(Layout.activityPrefix("c1", group)).isEmpty(), "no intent or marker stays");
  }

  /** The publish has listed the chunks (the leftover among them) when the sweep runs from start to end. */
  @Test
  void aSweepDuringAPublishKeepsTheChunksThePublishCountsOn() throws Exception {
    CountDownLatch listed = new CountDownLatch(1);
    CountDownLatch swept = new CountDownLatch(1);
    store.afterList = prefix -> {
      if (Thread.currentThread().getName().equals("publisher") && prefix.startsWith(Layout.CHUNKS)) {
        listed.countDown();
        await(swept);
      }
    };
    CompletableFuture<PublishResult> publish =
        run("publisher", () -> publisher.publish(source(200, reappearing), OPEN));
    assertTrue(listed.await(30, TimeUnit.SECONDS));
    GarbageCollector.GcReport report = sweep();
    swept.countDown();

    assertInstanceOf(PublishResult.Published.class, publish.get(30, TimeUnit.SECONDS));
    assertEquals(0, report.deletedChunks(), "the sweep kept the chunks: " + report.chunksKept());
    assertTrue(report.chunksKept().orElseThrow().startsWith("a publish of the group is in progress (intent "));
    assertEveryGenerationVerifies();
  }

  /**
   * The sweep has written its marker and listed the group's activity (no publish yet) when the publish
   * starts; the publish's manifest is held until the sweep has ended, so a publish that counted on the
   * leftover would name a deleted chunk.
   */
  @Test
  void aPublishDuringASweepWaitsForItBeforeCountingOnAChunk() throws Exception {
    CountDownLatch sweepListed = new CountDownLatch(1);
    CountDownLatch publishStarted = new CountDownLatch(1);
    CountDownLatch sweepEnded = new CountDownLatch(1);
    AtomicInteger publisherActivityListings = new AtomicInteger();
    store.afterList = prefix -> {
      String thread = Thread.currentThread().getName();
      if (thread.equals("sweeper") && prefix.startsWith(Layout.ACTIVITY) && sweepListed.getCount() > 0) {
        sweepListed.countDown();
        await(publishStarted);
      } else if (thread.equals("publisher")
          && (prefix.startsWith(Layout.CHUNKS) || publisherActivityListings.incrementAndGet() == 2)) {
        publishStarted.countDown(); // it counts on chunks now, or it is waiting for the sweep
      }
    };
    store.beforePut = key -> {
      if (Thread.currentThread().getName().equals("publisher") && key.startsWith(Layout.MANIFESTS)) {
        await(sweepEnded);
      }
    };
    CompletableFuture<GarbageCollector.GcReport> sweep = run("sweeper", this::sweep);
    assertTrue(sweepListed.await(30, TimeUnit.SECONDS));
    CompletableFuture<PublishResult> publish =
        run("publisher", () -> publisher.publish(source(200, reappearing), OPEN));
    GarbageCollector.GcReport report = sweep.get(30, TimeUnit.SECONDS);
    sweepEnded.countDown();

    assertInstanceOf(PublishResult.Published.class, publish.get(30, TimeUnit.SECONDS));
    assertEquals(1, report.deletedChunks(), "the sweep deleted the leftover");
    assertEveryGenerationVerifies();
  }

  private interface Step<T> {
    T run() throws Exception;
  }

  private static <T> CompletableFuture<T> run(String threadName, Step<T> step) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        result.complete(step.run());
      } catch (Throwable e) {
        result.completeExceptionally(e);
      }
    }, threadName);
    thread.setDaemon(true);
    thread.start();
    return result;
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the other side never came");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A store whose listings and puts call a hook, in the thread making them, which may hold it. */
  private static final class SteppedStore extends ForwardingObjectStore {
    volatile java.util.function.Consumer<String> afterList = prefix -> {};
    volatile java.util.function.Consumer<String> beforePut = key -> {};

    SteppedStore(DirectoryObjectStore delegate) {
      super(delegate);
    }

    @Override
    public List<ObjectInfo> list(String prefix, String startAfter, int maxKeys) {
      List<ObjectInfo> listed = super.list(prefix, startAfter, maxKeys);
      afterList.accept(prefix);
      return listed;
    }

    @Override
    public PutOutcome putIfAbsent(String key, Content content) {
      beforePut.accept(key);
      return super.putIfAbsent(key, content);
    }
  }
}
