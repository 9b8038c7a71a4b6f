package dev.ratisoffload.kafka.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.format.GroupOffsetsCodec;
import dev.ratisoffload.kafka.format.GroupOffsetsSnapshot;
import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.KafkaLayout.GroupOffsetsKey;
import dev.ratisoffload.kafka.format.KafkaLayout.OffsetMapKey;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which consumer-group offset snapshots {@code kafka gc} keeps, on a directory store: partition 0's chain
 * has six segments whose records were written at hours 0 to 5, and a snapshot was taken at every half
 * hour past (0:30 to 5:30). Keeping 2.5 hours removes segments 0-2, so partition 0's window starts at
 * hour 3: the snapshot of 2:30 (the newest at or before it) and every later one stay.
 */
class SnapshotCollectorTest {

  private static final Uuid ID = Uuid.fromString("q1ZHO0DHRjS8G2cH1V6wrQ");
  private static final long T0 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
  private static final long HOUR = HourlyChain.HOUR;
  private static final ChainRetention KEEP_2_5_HOURS =
      new ChainRetention(Optional.of(Duration.ofMinutes(150)), OptionalLong.empty());

  @TempDir
  Path dir;
  private ObjectStore store;
  private OffsetMapKey offsetMap;

  @BeforeEach
  void writeChainAndSnapshots() {
    store = new DirectoryObjectStore(dir);
    HourlyChain.write(store, ID, 0, 0, 6, T0);
    for (int h = 0; h < 6; h++) {
      writeSnapshot(T0 + h * HOUR + HOUR / 2);
    }
    offsetMap = new OffsetMapKey("c", "orders", ID, Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ"), T0);
    store.putIfAbsent(offsetMap.key(), Content.of("a map".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void theNewestSnapshotAtOrBeforeTheKeptWindowAndAllAfterItStay() {
    SnapshotResult dry = collect(false);
    assertEquals(List.of(at(0, 30), at(1, 30)), dry.removed(), dry.toString());
    assertEquals(4, dry.kept());
    assertEquals(6, snapshotTimes().size(), "a dry run removes nothing");

    SnapshotResult applied = collect(true);
    assertTrue(applied.applied(), applied.toString());
    assertEquals(List.of(at(2, 30), at(3, 30), at(4, 30), at(5, 30)), snapshotTimes());
    assertTrue(store.head(offsetMap.key()).isPresent(), "offset maps are kept");
    assertEquals(List.of(), collect(true).removed(), "a second run has nothing more to remove");
  }

  @Test
  void everyChainsWindowCounts() {
    HourlyChain.write(store, ID, 1, 2, 4, T0); // partition 1 stopped at hour 3, so it keeps everything from hour 2 on
    SnapshotResult applied = collect(true);
    assertEquals(List.of(at(0, 30)), applied.removed(), applied.toString());
    assertEquals(List.of(at(1, 30), at(2, 30), at(3, 30), at(4, 30), at(5, 30)), snapshotTimes());
  }

  @Test
  void anUnreadableSnapshotKeepsEveryOneAndSaysWhich() {
    String damaged = new GroupOffsetsKey("c", "orders", ID, T0 + 5 * HOUR).key();
    store.putIfAbsent(damaged, Content.of("{not json".getBytes(StandardCharsets.UTF_8)));
    SnapshotResult refused = collect(true);
    assertNotNull(refused.refused(), refused.toString());
    assertTrue(refused.refused().contains(damaged) && refused.refused().contains("every snapshot of the topic is kept"),
        refused.refused());
    assertEquals(7, snapshotTimes().size());
  }

  @Test
  void anUnreadableSnapshotNameKeepsEveryOne() {
    String stray = KafkaLayout.groupOffsetsPrefix("c", "orders", ID) + "yesterday.snapshot";
    store.putIfAbsent(stray, Content.of(new byte[] {1}));
    SnapshotResult refused = collect(true);
    assertTrue(refused.refused() != null && refused.refused().contains(stray), refused.toString());
    assertEquals(6, snapshotTimes().size());
  }

  private SnapshotResult collect(boolean apply) {
    SegmentSource source = new SegmentSource(store);
    KafkaBackupCatalog catalog = KafkaBackupCatalog.scan(store, "c", "orders");
    List<ChainResult> chains = new ChainCollector(source, KEEP_2_5_HOURS).collect(catalog, apply);
    List<SnapshotResult> results = new SnapshotCollector(source).collect(catalog, chains, apply);
    assertEquals(1, results.size(), results.toString());
    return results.get(0);
  }

  private static Instant at(int hour, int minute) {
    return Instant.ofEpochMilli(T0 + hour * HOUR + minute * 60_000L);
  }

  private List<Instant> snapshotTimes() {
    return store.list(KafkaLayout.groupOffsetsPrefix("c", "orders", ID)).stream().map(ObjectInfo::key)
        .flatMap(k -> KafkaLayout.parseGroupOffsetsKey(k).stream())
        .map(k -> Instant.ofEpochMilli(k.takenAtMillis())).toList();
  }

  private void writeSnapshot(long takenAt) {
    GroupOffsetsSnapshot snapshot = new GroupOffsetsSnapshot(GroupOffsetsSnapshot.FORMAT_VERSION, "c", "orders",
        ID.toString(), Instant.ofEpochMilli(takenAt), Map.of("billing", Map.of(0, 5L)));
    store.putIfAbsent(new GroupOffsetsKey("c", "orders", ID, takenAt).key(),
        Content.of(GroupOffsetsCodec.encode(snapshot)));
  }
}
