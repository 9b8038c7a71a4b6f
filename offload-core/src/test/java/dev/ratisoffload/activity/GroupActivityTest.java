package dev.ratisoffload.activity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.format.Layout;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ForwardingObjectStore;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The publish side's decisions, over a directory store (the store's clock is the files' times). */
class GroupActivityTest {

  private static final Duration GRACE = Duration.ofMinutes(10);

  @TempDir
  Path dir;

  private DirectoryObjectStore store;
  private final String group = UUID.randomUUID().toString();
  private final AtomicLong nanos = new AtomicLong();

  @BeforeEach
  void setUp() {
    store = new DirectoryObjectStore(dir);
  }

  private List<String> activity() {
    return store.list(Layout.activityPrefix("c", group)).stream().map(ObjectInfo::key).toList();
  }

  @Test
  void aPublishWaitsWhileASweepRunsAndGoesOnWhenItEnds() throws Exception {
    AtomicInteger listings = new AtomicInteger();
    CountDownLatch polledTwice = new CountDownLatch(1);
    ObjectStore counting = new ForwardingObjectStore(store) {
      @Override
      public List<ObjectInfo> list(String prefix, String startAfter, int maxKeys) {
        List<ObjectInfo> listed = super.list(prefix, startAfter, maxKeys);
        if (listings.incrementAndGet() == 3) { // the sweep's listing, then two of the publish's
          polledTwice.countDown();
        }
        return listed;
      }
    };
    GroupActivity.Sweep sweep = new GroupActivity(counting, GRACE).beginSweep("c", group);
    CompletableFuture<Optional<GroupActivity.Claim>> publish = CompletableFuture.supplyAsync(() ->
        new GroupActivity(counting, GRACE).announcePublish("c", group, "test", () -> false));
    assertTrue(polledTwice.await(30, TimeUnit.SECONDS));
    assertFalse(publish.isDone(), "still waiting for the sweep");
    sweep.close();
    GroupActivity.Claim intent = publish.get(30, TimeUnit.SECONDS).orElseThrow();
    assertEquals(List.of(intent.key()), activity());
    intent.close();
    assertEquals(List.of(), activity());
  }

  @Test
  void aPublishThatASweepOutlastsFailsAndLeavesNothing() {
    GroupActivity.Sweep sweep = new GroupActivity(store, GRACE).beginSweep("c", group);
    GroupActivity noWait = new GroupActivity(store, GRACE, Duration.ZERO, nanos::get);
    GroupActivityException e = assertThrows(GroupActivityException.class,
        () -> noWait.announcePublish("c", group, "test", () -> false));
    assertTrue(e.getMessage().contains("a garbage collection sweep of group " + group + " is running"), e.getMessage());
    assertTrue(e.getMessage().contains("nothing of this publish was written"), e.getMessage());
    assertTrue(e.isRetriable());
    assertEquals(1, activity().size(), "the intent is removed, the sweep's marker stays");
    sweep.close();
  }

  @Test
  void aPublishStoppedWhileWaitingRemovesItsIntent() {
    GroupActivity.Sweep sweep = new GroupActivity(store, GRACE).beginSweep("c", group);
    assertTrue(new GroupActivity(store, GRACE).announcePublish("c", group, "test", () -> true).isEmpty());
    assertEquals(1, activity().size());
    sweep.close();
  }

  /** A sweep whose marker the store dates {@code ago} back. */
  private GroupActivity.Sweep sweepStarted(Duration ago) throws Exception {
    GroupActivity.Sweep sweep = new GroupActivity(store, GRACE).beginSweep("c", group);
    Files.setLastModifiedTime(dir.resolve(activity().get(0)), FileTime.from(Instant.now().minus(ago)));
    return sweep;
  }

  @Test
  void aMarkerHoldsAPublishUntilItIsOlderThanTheGrace() throws Exception {
    GroupActivity noWait = new GroupActivity(store, GRACE, Duration.ZERO, nanos::get);
    try (GroupActivity.Sweep slow = sweepStarted(GRACE.minusSeconds(30))) {
      assertThrows(GroupActivityException.class, () -> noWait.announcePublish("c", group, "test", () -> false));
    }
    try (GroupActivity.Sweep died = sweepStarted(GRACE.plusSeconds(5))) {
      noWait.announcePublish("c", group, "test", () -> false).orElseThrow().close();
    }
  }

  @Test
  void aPublishWritesNoManifestAfterHalfTheGrace() {
    GroupActivity activity = new GroupActivity(store, GRACE, Duration.ZERO, nanos::get);
    GroupActivity.Claim intent = activity.announcePublish("c", group, "test", () -> false).orElseThrow();
    nanos.addAndGet(GRACE.toNanos() / 2 - 1);
    intent.requireTimeLeft();
    nanos.addAndGet(1);
    GroupActivityException e = assertThrows(GroupActivityException.class, intent::requireTimeLeft);
    assertTrue(e.getMessage().contains("no manifest was written"), e.getMessage());
    intent.close();
  }

  @Test
  void aSweepSeesALivePublishAndJudgesAnOldOneAbandoned() throws Exception {
    GroupActivity activity = new GroupActivity(store, GRACE);
    GroupActivity.Claim old = activity.announcePublish("c", group, "died", () -> false).orElseThrow();
    Files.setLastModifiedTime(dir.resolve(old.key()), FileTime.from(Instant.now().minus(GRACE).minusSeconds(5)));
    try (GroupActivity.Sweep sweep = activity.beginSweep("c", group)) {
      assertTrue(sweep.livePublish().isEmpty());
      sweep.deleteAbandoned();
    }
    assertEquals(List.of(), activity(), "the abandoned intent and the marker are gone");
    GroupActivity.Claim live = activity.announcePublish("c", group, "running", () -> false).orElseThrow();
    try (GroupActivity.Sweep sweep = activity.beginSweep("c", group)) {
      assertEquals(live.key(), sweep.livePublish().orElseThrow().key());
    }
    live.close();
  }

  /**
   * With the default 6 h grace, a killed collection's marker holds publishes off for ten minutes, not
   * six hours, while a publish's intent stays live for the grace; a sweep deletes for five minutes.
   */
  @Test
  void aMarkerIsAbandonedAfterTenMinutesWhateverTheGrace() throws Exception {
    Duration sixHours = Duration.ofHours(6);
    GroupActivity noWait = new GroupActivity(store, sixHours, Duration.ZERO, nanos::get);
    GroupActivity.Sweep died = new GroupActivity(store, sixHours, Duration.ZERO, nanos::get).beginSweep("c", group);
    Files.setLastModifiedTime(dir.resolve(activity().get(0)), FileTime.from(Instant.now().minus(Duration.ofMinutes(9))));
    assertThrows(GroupActivityException.class, () -> noWait.announcePublish("c", group, "test", () -> false));
    Files.setLastModifiedTime(dir.resolve(activity().get(0)), FileTime.from(Instant.now().minus(Duration.ofMinutes(11))));
    GroupActivity.Claim intent = noWait.announcePublish("c", group, "test", () -> false).orElseThrow();
    Files.setLastModifiedTime(dir.resolve(intent.key()), FileTime.from(Instant.now().minus(Duration.ofMinutes(11))));
    try (GroupActivity.Sweep sweep = noWait.beginSweep("c", group)) {
      assertEquals(intent.key(), sweep.livePublish().orElseThrow().key(), "an intent lives for the grace");
      nanos.addAndGet(Duration.ofMinutes(5).toNanos() - 1);
      assertTrue(sweep.timeLeft());
      nanos.addAndGet(1);
      assertFalse(sweep.timeLeft(), "a sweep deletes for half of its marker's ten minutes");
    }
    intent.close();
    died.close();
  }

  /**
   * A collector run with a shorter --chunk-grace than the servers' must not take their live intent for
   * abandoned, nor a publish with a shorter grace a live sweep's marker: each object carries its
   * writer's lifetime.
   */
  @Test
  void eachSideJudgesTheOthersObjectByTheLifetimeItsWriterDeclared() throws Exception {
    GroupActivity servers = new GroupActivity(store, Duration.ofHours(6), Duration.ZERO, nanos::get);
    GroupActivity shortGrace = new GroupActivity(store, Duration.ofMinutes(1), Duration.ZERO, nanos::get);
    GroupActivity.Claim intent = servers.announcePublish("c", group, "test", () -> false).orElseThrow();
    Files.setLastModifiedTime(dir.resolve(intent.key()), FileTime.from(Instant.now().minus(Duration.ofMinutes(5))));
    try (GroupActivity.Sweep sweep = shortGrace.beginSweep("c", group)) {
      assertEquals(intent.key(), sweep.livePublish().orElseThrow().key(), "five minutes into a 6h grace: live");
    }
    intent.close();
    GroupActivity.Sweep longSweep = servers.beginSweep("c", group);
    Files.setLastModifiedTime(dir.resolve(activity().get(0)), FileTime.from(Instant.now().minus(Duration.ofMinutes(2))));
    assertThrows(GroupActivityException.class, () -> shortGrace.announcePublish("c", group, "test", () -> false),
        "a marker two minutes into its ten is live for a publish with a one-minute grace");
    longSweep.close();
  }

  /** A marker whose delete failed in an outage is deleted before the process's next activity. */
  @Test
  void anObjectThatCouldNotBeDeletedIsDeletedBeforeTheNextActivity() {
    OutageStore flaky = new OutageStore(false);
    GroupActivity activity = leftoverSweepMarker(flaky);
    flaky.down.set(false);
    activity.announcePublish("c", group, "test", () -> false).orElseThrow().close();
    assertEquals(List.of(), activity(), "the leftover marker went first, so the publish did not wait for it");
  }

  /**
   * The store came back between the claim's delete of a leftover marker (refused) and the intent's
   * write: the publish deletes the leftover then, instead of waiting for its own marker to expire.
   */
  @Test
  void aLeftoverMarkerStillThereWhenThePublishListsIsDeletedNotWaitedFor() {
    OutageStore flaky = new OutageStore(true);
    GroupActivity activity = leftoverSweepMarker(flaky);
    GroupActivity.Claim intent = activity.announcePublish("c", group, "test", () -> false).orElseThrow();
    assertEquals(List.of(intent.key()), activity(), "the leftover marker went, so the publish did not wait for it");
    intent.close();
  }

  /** A sweep over {@code flaky} whose marker stayed because the store went down as it ended. */
  private GroupActivity leftoverSweepMarker(OutageStore flaky) {
    GroupActivity activity = new GroupActivity(flaky, GRACE, Duration.ZERO, nanos::get);
    GroupActivity.Sweep sweep = activity.beginSweep("c", group);
    flaky.down.set(true);
    sweep.close();
    assertEquals(1, activity().size(), "the marker stayed");
    return activity;
  }

  /** The directory store, refusing deletes while {@link #down} is set (an outage); a write may end it. */
  private final class OutageStore extends ForwardingObjectStore {
    final java.util.concurrent.atomic.AtomicBoolean down = new java.util.concurrent.atomic.AtomicBoolean();
    private final boolean aWriteEndsIt;

    OutageStore(boolean aWriteEndsIt) {
      super(store);
      this.aWriteEndsIt = aWriteEndsIt;
    }

    @Override
    public void delete(String key) {
      if (down.get()) {
        throw new dev.ratisoffload.store.StoreUnavailableException("store down", null);
      }
      super.delete(key);
    }

    @Override
    public PutOutcome putIfAbsent(String key, dev.ratisoffload.store.Content content) {
      if (aWriteEndsIt) {
        down.set(false); // back just after a refused delete
      }
      return super.putIfAbsent(key, content);
    }
  }

  /** A marker the store kept though its writer saw the write fail is deleted before the next activity. */
  @Test
  void aMarkerWrittenAsTheStoreWentDownIsDeletedBeforeTheNextActivity() {
    java.util.concurrent.atomic.AtomicBoolean loseAnswer = new java.util.concurrent.atomic.AtomicBoolean(true);
    dev.ratisoffload.store.ObjectStore flaky = new dev.ratisoffload.store.ForwardingObjectStore(store) {
      @Override
      public PutOutcome putIfAbsent(String key, dev.ratisoffload.store.Content content) {
        PutOutcome outcome = super.putIfAbsent(key, content);
        if (loseAnswer.getAndSet(false)) {
          throw new dev.ratisoffload.store.StoreUnavailableException("the server failed to respond", null);
        }
        return outcome;
      }
    };
    GroupActivity activity = new GroupActivity(flaky, GRACE, Duration.ZERO, nanos::get);
    assertThrows(dev.ratisoffload.store.StoreUnavailableException.class, () -> activity.beginSweep("c", group));
    assertEquals(1, activity().size(), "the store kept the marker");
    activity.announcePublish("c", group, "test", () -> false).orElseThrow().close();
    assertEquals(List.of(), activity());
  }

  @Test
  void aChunkGraceBelowTheMinimumIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new GroupActivity(store, Duration.ofSeconds(59)));
    assertTrue(e.getMessage().contains("at least 1min"), e.getMessage());
  }
}
