package dev.ratisoffload.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ratisoffload.format.GenerationReader.StoredGeneration;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.Layout.VerificationMark;
import dev.ratisoffload.store.ObjectInfo;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** What a pass reads from one listing of a group: when a scrub is due, what is damaged. */
class GroupViewTest {

  private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");
  private final String group = UUID.randomUUID().toString();

  private StoredGeneration generation(long index, int hour) {
    GenerationId id = new GenerationId("c", group, 1, index);
    return new StoredGeneration(id, new ObjectInfo(id.manifestKey(), 10, T0.plusSeconds(hour * 3600L)));
  }

  private VerificationMark mark(StoredGeneration g, int hour, boolean ok) {
    return new VerificationMark(g.id(), T0.plusSeconds(hour * 3600L), ok, "k");
  }

  @Test
  void onlyARecordOfTheThenNewestGenerationMakesTheScrubWait() {
    StoredGeneration old = generation(10, 0);
    StoredGeneration newest = generation(20, 5);
    // `offload verify --all --record` at hour 8 re-verified the old one: it must not postpone the scrub.
    SnapshotOffload.GroupView view = new SnapshotOffload.GroupView(List.of(old, newest),
        Map.of(old.id(), mark(old, 8, true), newest.id(), mark(newest, 6, true)));
    assertEquals(T0.plusSeconds(6 * 3600), view.lastVerifiedWhileNewest());
    assertEquals(T0.plusSeconds(8 * 3600), view.lastVerifiedAt(), "the gauge shows any generation's");
    SnapshotOffload.GroupView onlyOld = new SnapshotOffload.GroupView(List.of(old, newest),
        Map.of(old.id(), mark(old, 8, true)));
    assertNull(onlyOld.lastVerifiedWhileNewest(), "the newest was never verified: due at once");
    SnapshotOffload.GroupView beforeNewest = new SnapshotOffload.GroupView(List.of(old, newest),
        Map.of(old.id(), mark(old, 3, true)));
    assertEquals(T0.plusSeconds(3 * 3600), beforeNewest.lastVerifiedWhileNewest(), "old was the newest then");
  }

  @Test
  void anOlderGenerationDamagedBeforeTheNewestWasPublishedIsScrubbedAgain() {
    StoredGeneration old = generation(10, 0);
    StoredGeneration newest = generation(20, 5);
    SnapshotOffload.GroupView view = new SnapshotOffload.GroupView(List.of(old, newest),
        Map.of(old.id(), mark(old, 2, false)));
    assertEquals(1, view.damaged());
    assertEquals(Optional.of(old.id()), view.damagedBefore(T0.plusSeconds(5 * 3600)));
    assertEquals(Optional.empty(), view.damagedBefore(T0.plusSeconds(3600)), "not before a newer publish");
    assertEquals(Optional.empty(), view.damagedBefore(null));
  }
}
