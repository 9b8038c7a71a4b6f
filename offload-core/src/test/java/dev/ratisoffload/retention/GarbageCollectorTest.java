package dev.ratisoffload.retention;

import dev.ratisoffload.activity.GroupActivity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.format.CorruptManifestException;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.retention.RetentionPlan.Candidate;
import dev.ratisoffload.store.ForwardingObjectStore;
import dev.ratisoffload.store.InMemoryObjectStore;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class GarbageCollectorTest {

  private final RetentionPropertiesTest.MutableClock clock =
      new RetentionPropertiesTest.MutableClock(Instant.parse("2026-03-01T00:00:00Z"));
  private final InMemoryObjectStore store = new InMemoryObjectStore(clock);
  private final String group = UUID.randomUUID().toString();
  private final RetentionPolicy keepTwo =
      new RetentionPolicy(2, Duration.ZERO, 0, 0, 0, 0, Duration.ofMinutes(10));

  /** Five generations, each verified intact (retention deletes nothing of a group without one). */
  private List<GenerationId> publishFive() {
    List<GenerationId> ids = publishFiveUnverified();
    ids.forEach(id -> RetentionPropertiesTest.verified(store, id, clock.now, true));
    return ids;
  }

  private List<GenerationId> publishFiveUnverified() {
    List<GenerationId> ids = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      clock.now = clock.now.plusSeconds(3600);
      ids.add(RetentionPropertiesTest.publish(store, group, new Candidate(i * 10, 1, clock.now),
          List.of(("unique-" + i).getBytes(), "shared".getBytes())));
    }
    clock.now = clock.now.plusSeconds(3600);
    return ids;
  }

  /** Two collectors of one group at once could each keep another "newest verified": one at a time. */
  @Test
  void aCollectionDeletesNothingWhileAnotherOfTheGroupRuns() {
    publishFive();
    List<String> before = allKeys();
    try (GroupActivity.Sweep other = new GroupActivity(store, Duration.ofMinutes(10)).beginSweep("c", group)) {
      GarbageCollector.GcReport report = new GarbageCollector(store).collect("c", group, keepTwo, true);
      assertEquals(List.of(), report.expiredManifests());
      assertTrue(report.chunksKept().orElseThrow().contains("another collection of the group is running"),
          report.chunksKept().toString());
      List<String> during = allKeys().stream().filter(k -> !k.startsWith(Layout.ACTIVITY)).toList();
      assertEquals(before, during, "nothing deleted");
    }
    assertEquals(3, new GarbageCollector(store).collect("c", group, keepTwo, true).expiredManifests().size());
  }

  @Test
  void nothingIsDeletedWhileNoGenerationIsVerified() {
    publishFiveUnverified();
    List<String> before = allKeys();
    GarbageCollector.GcReport report = new GarbageCollector(store).collect("c", group, keepTwo, true);
    assertEquals(List.of(), report.expiredManifests());
    assertEquals(0, report.deletedChunks());
    report.kept().values().forEach(reasons -> assertTrue(reasons.contains(RetentionPlan.NONE_VERIFIED), reasons.toString()));
    assertEquals(before, allKeys());
  }

  /** The case: the newest is damaged, keep-last 1 must not leave the group without an intact one. */
  @Test
  void aDamagedNewestKeepsTheNewestVerifiedGenerationAndExpiredRecordsGo() {
    List<GenerationId> ids = publishFiveUnverified();
    ids.subList(0, 4).forEach(id -> RetentionPropertiesTest.verified(store, id, clock.now, true));
    RetentionPropertiesTest.verified(store, ids.get(4), clock.now.plusSeconds(1), false);
    RetentionPolicy keepOne = new RetentionPolicy(1, Duration.ZERO, 0, 0, 0, 0, Duration.ofMinutes(10));
    GarbageCollector.GcReport report = new GarbageCollector(store).collect("c", group, keepOne, true);
    assertEquals(List.of(ids.get(2), ids.get(1), ids.get(0)), report.expiredManifests());
    assertTrue(report.kept().get(ids.get(3)).contains(RetentionPlan.NEWEST_VERIFIED), report.kept().toString());
    assertEquals(java.util.Set.of(ids.get(3), ids.get(4)),
        dev.ratisoffload.format.VerificationRecords.latest(store, "c", group).keySet(),
        "the records of expired generations are deleted with them");
  }

  private List<String> allKeys() {
    return store.list("").stream().map(ObjectInfo::key).toList();
  }

  @Test
  void withoutApplyNothingChanges() {
    publishFive();
    List<String> before = allKeys();
    GarbageCollector.GcReport plan = new GarbageCollector(store).collect("c", group, keepTwo, false);
    assertEquals(3, plan.expiredManifests().size());
    assertEquals(3, plan.deletedChunks(), "the plan names the three unique chunks of expired generations");
    assertEquals(before, allKeys());
  }

  @Test
  void appliesTheTwoPhases() {
    List<GenerationId> ids = publishFive();
    GarbageCollector.GcReport report = new GarbageCollector(store).collect("c", group, keepTwo, true);
    assertEquals(List.of(ids.get(2), ids.get(1), ids.get(0)), report.expiredManifests());
    assertEquals(3, report.deletedChunks());
    assertEquals(2, store.list(Layout.manifestPrefix("c", group)).size());
    assertEquals(3, store.list(Layout.chunkPrefix("c", group)).size(), "two unique chunks and the shared one");
  }

  @Test
  void unreferencedChunksGoWhateverTheirAgeAndTheSweepLeavesNoMarker() {
    publishFive();
    clock.now = clock.now.minusSeconds(3600 - 1); // a second after the last publish
    GarbageCollector.GcReport report = new GarbageCollector(store).collect("c", group,
        new RetentionPolicy(1, Duration.ZERO, 0, 0, 0, 0, Duration.ofHours(2)), true);
    assertEquals(4, report.expiredManifests().size());
    assertEquals(4, report.deletedChunks(), "the unique chunks of generations 1-4, however young");
    assertTrue(report.chunksKept().isEmpty());
    assertTrue(store.list(Layout.activityPrefix("c", group)).isEmpty(), "the marker is removed");
  }

  @Test
  void aPublishInProgressKeepsEveryChunkButManifestsStillExpire() {
    publishFive();
    GroupActivity.Claim intent = new GroupActivity(store, keepTwo.chunkGrace())
        .announcePublish("c", group, "a test publish", () -> false).orElseThrow();
    int chunks = store.list(Layout.chunkPrefix("c", group)).size();
    GarbageCollector.GcReport report = new GarbageCollector(store).collect("c", group, keepTwo, true);
    assertEquals(3, report.expiredManifests().size());
    assertEquals(0, report.deletedChunks());
    assertEquals(chunks, store.list(Layout.chunkPrefix("c", group)).size());
    assertEquals("a publish of the group is in progress (intent " + intent.key() + " written " + clock.now + ")",
        report.chunksKept().orElseThrow());
    assertNull(report.failure(), "not an error");
    intent.close();
    assertEquals(3, new GarbageCollector(store).collect("c", group, keepTwo, true).deletedChunks(),
        "the next run collects them");
  }

  @Test
  void anAbandonedIntentHoldsNothingAndIsRemoved() {
    publishFive();
    GroupActivity.Claim intent = new GroupActivity(store, keepTwo.chunkGrace())
        .announcePublish("c", group, "a publish that died", () -> false).orElseThrow();
    clock.now = clock.now.plus(keepTwo.chunkGrace()).plusSeconds(1); // the sweep's marker is written then
    GarbageCollector.GcReport report = new GarbageCollector(store).collect("c", group, keepTwo, true);
    assertEquals(3, report.deletedChunks());
    assertTrue(store.head(intent.key()).isEmpty(), "the abandoned intent is deleted");
    assertTrue(store.list(Layout.activityPrefix("c", group)).isEmpty());
  }

  @Test
  void aSweepStopsDeletingAtHalfTheGraceAndLeavesTheRestForTheNextRun() {
    publishFive();
    AtomicLong nanos = new AtomicLong();
    // Each chunk deleted takes a third of the grace on the local clock.
    ObjectStore slow = new ForwardingObjectStore(store) {
      @Override
      public void delete(String key) {
        super.delete(key);
        if (key.startsWith(Layout.CHUNKS)) {
          nanos.addAndGet(keepTwo.chunkGrace().toNanos() / 3);
        }
      }
    };
    GarbageCollector.GcReport report = new GarbageCollector(slow, nanos::get).collect("c", group, keepTwo, true);
    assertEquals(2, report.deletedChunks(), "deleted at 0 and at a third of the grace, not at two thirds");
    assertEquals(1, report.chunksLeft());
    assertTrue(store.list(Layout.activityPrefix("c", group)).isEmpty());
  }

  @Test
  void aStrangeObjectAmongTheActivityStopsChunkCollection() {
    publishFive();
    String stray = Layout.activityPrefix("c", group) + "stray";
    store.overwrite(stray, new byte[] {1});
    int chunks = store.list(Layout.chunkPrefix("c", group)).size();
    GarbageCollector.GcReport report = new GarbageCollector(store).collect("c", group, keepTwo, true);
    assertTrue(report.failure().getMessage().contains(stray), report.failure().getMessage());
    assertEquals(chunks, store.list(Layout.chunkPrefix("c", group)).size(), "no chunk deleted");
    assertEquals(List.of(stray), store.list(Layout.activityPrefix("c", group)).stream().map(ObjectInfo::key).toList(),
        "the sweep's marker is removed");
  }

  @Test
  void aMalformedManifestStopsTheSweepAndLeavesEverything() {
    List<GenerationId> ids = publishFive();
    store.overwrite(ids.get(3).manifestKey(), "not a manifest".getBytes());
    List<String> before = allKeys();
    GarbageCollector.GcReport report = new GarbageCollector(store).collect("c", group, keepTwo, true);
    CorruptManifestException failure = assertInstanceOf(CorruptManifestException.class, report.failure());
    assertTrue(failure.getMessage().contains(ids.get(3).manifestKey()), failure.getMessage());
    assertEquals(before, allKeys(), "nothing was deleted");
    assertTrue(report.expiredManifests().isEmpty());
  }

  @Test
  void aStrangeKeyAmongManifestsStopsTheSweep() {
    publishFive();
    store.overwrite(Layout.manifestPrefix("c", group) + "stray-object", new byte[] {1});
    List<String> before = allKeys();
    GarbageCollector.GcReport report = new GarbageCollector(store).collect("c", group, keepTwo, true);
    assertTrue(report.failure().getMessage().contains("stray-object"), report.failure().getMessage());
    assertEquals(before, allKeys());
  }

  @Test
  void noRuleKeepsEverything() {
    publishFive();
    List<String> before = allKeys();
    GarbageCollector.GcReport report = new GarbageCollector(store).collect("c", group,
        RetentionPolicy.keepAll(), true);
    assertEquals(5, report.kept().size());
    assertEquals(before, allKeys());
  }
}
