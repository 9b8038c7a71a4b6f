package dev.ratisoffload.kafka.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.format.SegmentHeader;
import dev.ratisoffload.kafka.format.TopicManifest;
import dev.ratisoffload.kafka.format.TopicManifestCodec;
import dev.ratisoffload.kafka.read.BackupLister;
import dev.ratisoffload.kafka.read.ChainFollower;
import dev.ratisoffload.kafka.read.ChainVerifier;
import dev.ratisoffload.kafka.read.KafkaReports;
import dev.ratisoffload.kafka.read.ListReport;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.kafka.read.StoredSegment;
import dev.ratisoffload.kafka.read.VerifyReport;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ForwardingObjectStore;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreUnavailableException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kafka gc}'s library on a directory store holding a real chain: six segments of ten offsets
 * (records 0-9, 10-19, ...), the records of segment s written at hour s.
 */
class ChainCollectorTest {

  private static final Uuid ID = Uuid.fromString("q1ZHO0DHRjS8G2cH1V6wrQ");
  private static final long T0 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
  private static final int SEGMENTS = 6;

  @TempDir
  Path dir;
  private ObjectStore store;
  private long segmentBytes;

  @BeforeEach
  void writeChain() {
    store = new DirectoryObjectStore(dir);
    TopicManifest manifest = new TopicManifest(1, "c", "orders", ID.toString(), 1, 1, "read_committed", Map.of(),
        List.of(), Instant.ofEpochMilli(T0), "t");
    store.putIfAbsent(new KafkaLayout.ManifestKey("c", "orders", ID, 1).key(),
        Content.of(TopicManifestCodec.encode(manifest)));
    List<SegmentHeader> headers = HourlyChain.write(store, ID, 0, 0, SEGMENTS, T0);
    segmentBytes = headers.get(headers.size() - 1).objectSize();
  }

  private List<ChainResult> collect(ObjectStore on, ChainRetention retention, boolean apply) {
    return new ChainCollector(new SegmentSource(on), retention).collect(KafkaBackupCatalog.scan(on, "c", "orders"), apply);
  }

  private static ChainRetention within(Duration d) {
    return new ChainRetention(Optional.of(d), OptionalLong.empty());
  }

  private List<String> keys() {
    return store.list("").stream().map(ObjectInfo::key).toList();
  }

  private List<Long> segmentStarts() {
    return store.list(KafkaLayout.partitionPrefix("c", "orders", ID, 0)).stream()
        .flatMap(o -> KafkaLayout.parseSegmentKey(o.key()).stream()).map(SegmentKey::firstOffset).toList();
  }

  private VerifyReport verify() {
    return new ChainVerifier(store, 1).verify("c", Optional.of("orders"));
  }

  @Test
  void aDryRunSaysWhatItWouldRemoveAndRemovesNothing() {
    List<String> before = keys();
    ChainResult r = collect(store, within(Duration.ofMinutes(150)), false).get(0);
    // Newest record: hour 5; the window reaches back to hour 2.5: segments 0, 1 and 2 hold only older records.
    assertEquals(3, r.removedSegments(), r.toString());
    assertEquals(0L, r.removedFirst());
    assertEquals(29L, r.removedLast());
    assertEquals(30L, r.keptFirst());
    assertEquals(3 * segmentBytes, r.removedBytes());
    assertEquals(false, r.applied());
    assertEquals(before, keys(), "nothing written or removed");
  }

  @Test
  void applyRemovesTheOldSegmentsAndTheChainStillVerifiesListsAndFollows() {
    ChainResult r = collect(store, within(Duration.ofMinutes(150)), true).get(0);
    assertTrue(r.applied(), r.toString());
    assertEquals(List.of(30L, 40L, 50L), segmentStarts());
    assertTrue(store.head(new KafkaLayout.ChainStartKey("c", "orders", ID, 0, 30).key()).isPresent(), "the marker");

    VerifyReport verify = verify();
    assertTrue(verify.ok(), KafkaReports.text(verify));
    ListReport.PartitionListing listed = new BackupLister(store, 1).list("c", Optional.of("orders")).topics().get(0)
        .partitions().get(0);
    assertEquals(30, listed.firstOffset());
    assertEquals(59, listed.lastOffset());
    assertEquals(30L, listed.trimmedBelow());
    assertTrue(KafkaReports.text(new BackupLister(store, 1).list("c", Optional.empty()))
        .contains("30-59"), "the window the chain covers");
    List<StoredSegment> followed = new ChainFollower(store, "c", "orders", ID, 0, Optional.empty()).poll();
    assertEquals(30, followed.get(0).firstOffset(), "a restore starts at the first kept segment");

    // Trimming again moves the marker and removes the older one.
    ChainResult again = collect(store, within(Duration.ofMinutes(30)), true).get(0);
    assertEquals(2, again.removedSegments(), again.toString());
    assertEquals(List.of(50L), segmentStarts());
    assertEquals(List.of(KafkaLayout.partitionPrefix("c", "orders", ID, 0) + "chain-start-0000000000000000050"),
        store.list(KafkaLayout.partitionPrefix("c", "orders", ID, 0) + "chain-start-").stream().map(ObjectInfo::key)
            .toList());
    assertTrue(verify().ok(), KafkaReports.text(verify()));
  }

  @Test
  void theNewestSegmentIsAlwaysKeptAndTheByteBoundKeepsTheNewestThatFit() {
    ChainResult tiny = collect(store, within(Duration.ofMillis(1)), false).get(0);
    assertEquals(SEGMENTS - 1, tiny.removedSegments(), "all but the newest: " + tiny);

    ChainResult oneByte = collect(store, new ChainRetention(Optional.empty(), OptionalLong.of(1)), false).get(0);
    assertEquals(SEGMENTS - 1, oneByte.removedSegments(), oneByte.toString());

    ChainRetention twoAndAHalf = new ChainRetention(Optional.empty(), OptionalLong.of(segmentBytes * 5 / 2));
    assertEquals(SEGMENTS - 2, collect(store, twoAndAHalf, true).get(0).removedSegments());
    assertEquals(List.of(40L, 50L), segmentStarts());

    ChainRetention either = new ChainRetention(Optional.of(Duration.ofHours(10)), OptionalLong.of(segmentBytes));
    assertEquals(1, collect(store, either, false).get(0).removedSegments(), "either rule lets a segment go");
  }

  @Test
  void aCollectionStoppedAfterItsMarkerLeavesAVerifiableChainAndTheNextRunFinishesIt() {
    AtomicInteger deletes = new AtomicInteger();
    ObjectStore failingSecondDelete = new ForwardingObjectStore(store) {
      @Override
      public void delete(String key) {
        if (deletes.incrementAndGet() > 1) {
          throw new StoreUnavailableException("simulated outage while deleting " + key, null);
        }
        super.delete(key);
      }
    };
    KafkaOffloadException e = assertThrows(KafkaOffloadException.class,
        () -> collect(failingSecondDelete, within(Duration.ofMinutes(150)), true));
    assertEquals(KafkaOffloadException.Kind.UNAVAILABLE, e.kind());
    assertTrue(e.getMessage().contains("removed 1 of the 3 segments") && e.getMessage().contains("verifies"),
        e.getMessage());
    assertEquals(List.of(10L, 20L, 30L, 40L, 50L), segmentStarts());
    VerifyReport halfway = verify();
    assertTrue(halfway.ok(), KafkaReports.text(halfway));

    // The next run, even with a policy that keeps more, finishes what the marker announced.
    ChainResult next = collect(store, within(Duration.ofHours(100)), true).get(0);
    assertEquals(2, next.removedSegments(), next.toString());
    assertEquals(List.of(30L, 40L, 50L), segmentStarts());
    assertTrue(verify().ok());
  }

  @Test
  void aBackupTrimsItsChainAfterEachStoredSegmentAndGoesOnWhenRetentionFails() {
    List<String> warnings = new ArrayList<>();
    SegmentKey newest = KafkaLayout.parseSegmentKey(store.list(KafkaLayout.partitionPrefix("c", "orders", ID, 0))
        .get(SEGMENTS - 1).key()).orElseThrow();
    new RetentionWhileBackingUp(new ChainCollector(new SegmentSource(store),
        within(Duration.ofMinutes(90))), warnings::add).segmentStored(newest);
    assertEquals(List.of(40L, 50L), segmentStarts());
    assertEquals(List.of(), warnings);

    ObjectStore unlistable = new ForwardingObjectStore(store) {
      @Override
      public List<ObjectInfo> list(String prefix, String startAfter, int maxKeys) {
        throw new StoreUnavailableException("simulated outage listing " + prefix, null);
      }
    };
    new RetentionWhileBackingUp(new ChainCollector(new SegmentSource(unlistable),
        within(Duration.ofMillis(1))), warnings::add).segmentStored(newest);
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains("the chain is intact"), warnings.get(0));
    assertEquals(List.of(40L, 50L), segmentStarts());
  }

  @Test
  void aChainWithAGapHasNothingRemovedAndSaysWhy() {
    String third = KafkaLayout.parseSegmentKey(store.list(KafkaLayout.partitionPrefix("c", "orders", ID, 0)).get(2)
        .key()).orElseThrow().key();
    store.delete(third);
    List<String> before = keys();
    ChainResult r = collect(store, within(Duration.ofMinutes(1)), true).get(0);
    assertNotNull(r.refused());
    assertTrue(r.refused().contains("offsets 20-29") && r.refused().contains("kafka verify"), r.refused());
    assertEquals(0, r.removedSegments());
    assertEquals(before, keys(), "nothing removed");
  }

  @Test
  void anUnexpectedObjectOrACorruptMarkerBesideTheChainHasNothingRemoved() {
    String prefix = KafkaLayout.partitionPrefix("c", "orders", ID, 0);
    store.putIfAbsent(prefix + "notes.txt", Content.of(new byte[] {1}));
    List<String> before = keys();
    ChainResult stray = collect(store, within(Duration.ofMinutes(1)), true).get(0);
    assertTrue(stray.refused() != null && stray.refused().contains("notes.txt"), stray.toString());
    assertEquals(before, keys());
    store.delete(prefix + "notes.txt");

    store.putIfAbsent(new KafkaLayout.ChainStartKey("c", "orders", ID, 0, 20).key(), Content.of("junk".getBytes()));
    List<String> withMarker = keys();
    ChainResult corrupt = collect(store, within(Duration.ofMinutes(1)), true).get(0);
    assertTrue(corrupt.refused() != null && corrupt.refused().contains("chain-start marker"), corrupt.toString());
    assertEquals(withMarker, keys());
    assertTrue(!verify().ok(), "verify reports the corrupt marker too");
  }

  @Test
  void aFirstSegmentNamingAPredecessorWithoutAMarkerIsStillAMissingStart() {
    store.delete(store.list(KafkaLayout.partitionPrefix("c", "orders", ID, 0)).get(0).key());
    VerifyReport report = verify();
    assertTrue(!report.ok() && KafkaReports.text(report).contains("the start of the chain"), KafkaReports.text(report));
  }
}
