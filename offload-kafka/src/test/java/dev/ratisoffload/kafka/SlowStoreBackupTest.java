package dev.ratisoffload.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.backup.BackupListener;
import dev.ratisoffload.kafka.backup.BackupProgress;
import dev.ratisoffload.kafka.backup.BackupSettings;
import dev.ratisoffload.kafka.backup.BackupSummary;
import dev.ratisoffload.kafka.backup.KafkaTopicBackup;
import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.format.SegmentHeader;
import dev.ratisoffload.kafka.read.ChainVerifier;
import dev.ratisoffload.kafka.read.VerifyReport;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.ForwardingObjectStore;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreAccessException;
import dev.ratisoffload.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segments are stored on threads of their own: a slow store does not stop the consumer until the
 * segments waiting for it fill the memory budget, and a put that fails, or finds a second writer, still
 * ends the backup with its own error and nothing stored after it in its partition.
 */
class SlowStoreBackupTest {

  private static final Duration DEADLINE = Duration.ofSeconds(60);

  @RegisterExtension
  static final KafkaBroker kafka = new KafkaBroker();

  @Test
  void readingGoesOnWhileAPutIsHeldUntilTheBudgetIsFull(@TempDir Path dir) throws Exception {
    String topic = "slow-store";
    kafka.createTopics(new NewTopic(topic, 1, (short) 1));
    Produced produced = new Produced();
    InterruptedBackupTest.produce(kafka, topic, 1, 3000, produced, new Random(21)); // about 600 KB
    try (GatedStore store = new GatedStore(TestStores.directory(dir))) {
      Events events = new Events();
      // 256 KiB: the open segment counts about 20 KiB (its bytes and its block buffer), so about 236 KiB
      // of sealed segments may wait.
      BackupSettings settings = BackupSettings.builder(kafka.bootstrapServers(), topic, "c")
          .segmentBytes(4096).memoryBudget(256 * 1024).build();
      CompletableFuture<BackupSummary> running = start(new KafkaTopicBackup(settings, store, events));

      assertTrue(store.firstHeld.await(DEADLINE.toSeconds(), TimeUnit.SECONDS), "a segment put was held");
      assertTrue(events.waiting.await(DEADLINE.toSeconds(), TimeUnit.SECONDS), "the backup waited for the store");
      BackupProgress.PartitionProgress p = events.waitedAt.get().partitions().get(0);
      assertEquals(1, store.attempts().size(), "one put at a time per partition, and it is still held");
      assertEquals(0, p.segmentsStored());
      assertEquals(0, p.storedUpTo());
      // About 20 records fill a 4 KiB segment: many segments were sealed while the first put was held.
      assertTrue(p.position() > 200, "read on while the put was held: " + p);
      assertTrue(p.recordsRead() < produced.count(), "stopped reading at the budget: " + p);
      assertTrue(events.stored.isEmpty(), "nothing acknowledged before it is stored");
      assertTrue(!running.isDone());

      store.release();
      BackupSummary summary = running.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);

      assertEquals(BackupSummary.Ending.CAUGHT_UP, summary.ending());
      assertEquals(produced.count(), summary.recordsStored());
      assertEquals(store.attempts(), events.stored, "stored and acknowledged in chain order");
      assertEquals(summary.segmentsStored(), events.stored.size());
      ChainContents contents = ChainContents.read(store, "c", topic);
      assertEquals(produced.records(0), contents.records(0));
      contents.assertCovers(0, 0, produced.count());
      assertVerified(store, topic);
      assertNoStoreThreads(topic);
    }
  }

  @Test
  void aFailedPutFailsTheBackupWithItsErrorAndNothingLaterOfItsPartitionIsStored(@TempDir Path dir)
      throws Exception {
    String topic = "failing-store";
    kafka.createTopics(new NewTopic(topic, 2, (short) 1));
    InterruptedBackupTest.produce(kafka, topic, 2, 3000, new Produced(), new Random(22));
    try (GatedStore store = new GatedStore(TestStores.directory(dir))) {
      StoreAccessException injected = new StoreAccessException("injected: access denied", null);
      store.beforePut = key -> {
        if (key.partition() == 0 && store.attempts(0).size() == 2) {
          throw injected;
        }
      };
      Events events = new Events();
      BackupSettings settings = BackupSettings.builder(kafka.bootstrapServers(), topic, "c")
          .segmentBytes(4096).memoryBudget(256 * 1024).build();
      CompletableFuture<BackupSummary> running = start(new KafkaTopicBackup(settings, store, events));
      assertTrue(events.waiting.await(DEADLINE.toSeconds(), TimeUnit.SECONDS), "segments queued up");
      store.release();

      Throwable failure = failure(running);

      assertSame(injected, failure);
      List<SegmentKey> tried = store.attempts(0);
      assertEquals(2, tried.size(), "no put of partition 0 after the failed one: " + tried);
      assertEquals(List.of(tried.get(0)), stored(store, topic, 0), "only the segment before the failed one");
      assertTrue(!events.stored.contains(tried.get(1)), "the failed segment was not acknowledged");
      assertTrue(store.attempts().containsAll(events.stored), "everything acknowledged was put");
      for (SegmentKey key : events.stored) {
        assertTrue(store.head(key.key()).isPresent(), key + " acknowledged and stored");
      }
      assertVerified(store, topic);
      assertNoStoreThreads(topic);
    }
  }

  @Test
  void aSecondWriterFoundAfterABackgroundPutEndsTheBackupWithExit5(@TempDir Path dir) throws Exception {
    String topic = "second-writer";
    kafka.createTopics(new NewTopic(topic, 1, (short) 1));
    InterruptedBackupTest.produce(kafka, topic, 1, 1000, new Produced(), new Random(23));
    try (GatedStore store = new GatedStore(TestStores.directory(dir))) {
      store.release();
      store.beforePut = key -> {
        if (store.attempts(0).size() == 2) { // another backup cut its segment at the same offset
          SegmentKey theirs = new SegmentKey(key.cluster(), key.topic(), key.topicId(), 0, key.firstOffset(),
              key.firstOffset());
          store.putBehindTheBackup(theirs.key());
        }
      };
      Events events = new Events();
      BackupSettings settings = BackupSettings.builder(kafka.bootstrapServers(), topic, "c")
          .segmentBytes(4096).build();

      Throwable failure = failure(start(new KafkaTopicBackup(settings, store, events)));

      KafkaOffloadException refused = assertInstanceOf(KafkaOffloadException.class, failure);
      assertEquals(KafkaOffloadException.Kind.REFUSED, refused.kind());
      assertTrue(refused.getMessage().contains("another backup is writing " + topic + "/0 into the same store"),
          refused.getMessage());
      List<SegmentKey> tried = store.attempts(0);
      assertEquals(2, tried.size(), "no put after the conflict: " + tried);
      assertEquals(List.of(tried.get(0)), events.stored, "the conflicting segment is not acknowledged");
      assertNoStoreThreads(topic);
    }
  }

  private static CompletableFuture<BackupSummary> start(KafkaTopicBackup backup) {
    CompletableFuture<BackupSummary> running = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        running.complete(backup.run());
      } catch (Throwable e) {
        running.completeExceptionally(e);
      }
    }, "backup");
    t.start();
    return running;
  }

  private static Throwable failure(CompletableFuture<BackupSummary> running) throws Exception {
    try {
      BackupSummary summary = running.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
      throw new AssertionError("the backup succeeded: " + summary);
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  private static List<SegmentKey> stored(ObjectStore store, String topic, int partition) {
    return store.list(KafkaLayout.topicPrefix("c", topic)).stream().map(ObjectInfo::key)
        .map(KafkaLayout::parseSegmentKey).flatMap(Optional::stream).filter(k -> k.partition() == partition)
        .toList();
  }

  private static void assertVerified(ObjectStore store, String topic) {
    VerifyReport report = new ChainVerifier(store, 2).verify("c", Optional.of(topic));
    assertTrue(report.ok(), () -> report.allProblems().toString());
  }

  /** The backup's store threads are gone once run() returned or threw. */
  private static void assertNoStoreThreads(String topic) {
    List<String> left = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
        .filter(n -> n.startsWith("offload-kafka-store-" + topic + "-")).toList();
    assertEquals(List.of(), left);
  }

  /** What the backup told its listener. */
  private static final class Events implements BackupListener {
    final List<SegmentKey> stored = Collections.synchronizedList(new ArrayList<>());
    final CountDownLatch waiting = new CountDownLatch(1);
    final AtomicReference<BackupProgress> waitedAt = new AtomicReference<>();

    @Override
    public void segmentStored(SegmentKey key, SegmentHeader header) {
      stored.add(key);
    }

    @Override
    public void waitingForStore(BackupProgress progress) {
      if (waitedAt.compareAndSet(null, progress)) {
        waiting.countDown();
      }
    }
  }

  /**
   * A real store whose segment puts wait until {@link #release()}, and which records every segment put
   * it was asked for, in order, and can run a hook before one goes through.
   */
  private static final class GatedStore extends ForwardingObjectStore {
    final CountDownLatch firstHeld = new CountDownLatch(1);
    private final CountDownLatch gate = new CountDownLatch(1);
    private final List<SegmentKey> attempts = Collections.synchronizedList(new ArrayList<>());
    volatile Consumer<SegmentKey> beforePut = key -> {};

    GatedStore(ObjectStore delegate) {
      super(delegate);
    }

    void release() {
      gate.countDown();
    }

    List<SegmentKey> attempts() {
      synchronized (attempts) {
        return List.copyOf(attempts);
      }
    }

    List<SegmentKey> attempts(int partition) {
      return attempts().stream().filter(k -> k.partition() == partition).toList();
    }

    void putBehindTheBackup(String key) {
      delegate.putIfAbsent(key, Content.of(new byte[] {1}));
    }

    @Override
    public PutOutcome putIfAbsent(String key, Content content) {
      Optional<SegmentKey> segment = KafkaLayout.parseSegmentKey(key);
      if (segment.isPresent()) {
        attempts.add(segment.get());
        firstHeld.countDown();
        try {
          if (!gate.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
            throw new IllegalStateException("a held put was never released");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while held", e);
        }
        beforePut.accept(segment.get());
      }
      return super.putIfAbsent(key, content);
    }
  }
}
