package dev.ratisoffload.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.format.ManifestCodec;
import dev.ratisoffload.format.VerificationRecord;
import dev.ratisoffload.format.VerificationRecords;
import dev.ratisoffload.primitives.Hashes;
import dev.ratisoffload.retention.RetentionPlan.Candidate;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.InMemoryObjectStore;
import dev.ratisoffload.store.ObjectStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Retention over random histories of generations, clocks and policies. */
class RetentionPropertiesTest {

  private static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");

  /** A history: generation creation offsets (seconds after EPOCH, increasing with index). */
  @Provide
  Arbitrary<List<Candidate>> histories() {
    return Arbitraries.longs().between(1, 40 * 24 * 3600L).list().ofMinSize(0).ofMaxSize(60).map(gaps -> {
      List<Candidate> history = new ArrayList<>();
      Instant t = EPOCH;
      long index = 100;
      for (long gap : gaps) {
        t = t.plusSeconds(gap % 5 == 0 ? gap : gap / 50); // bursts and long pauses
        index += 1 + gap % 7;
        history.add(new Candidate(index, 1 + index / 1000, t));
      }
      return history;
    });
  }

  @Provide
  Arbitrary<RetentionPolicy> policies() {
    Arbitrary<Integer> count = Arbitraries.integers().between(0, 6);
    Arbitrary<Duration> within = Arbitraries.of(Duration.ZERO, Duration.ofMinutes(30), Duration.ofHours(5),
        Duration.ofDays(3));
    return Combinators.combine(count, within, count, count, count, count)
        .as((last, w, hourly, daily, weekly, monthly) ->
            new RetentionPolicy(last, w, hourly, daily, weekly, monthly, Duration.ofHours(1)));
  }

  @Property(tries = 1000)
  void invariantsHold(@ForAll("histories") List<Candidate> history, @ForAll("policies") RetentionPolicy policy,
      @ForAll("verifiedChoices") List<Boolean> verifiedChoices) {
    Set<Candidate> verified = new HashSet<>();
    for (int i = 0; i < history.size(); i++) {
      if (verifiedChoices.get(i % verifiedChoices.size())) {
        verified.add(history.get(i));
      }
    }
    RetentionPlan plan = RetentionPlan.of(history, policy, verified);
    Set<Candidate> kept = plan.kept().keySet();
    assertEquals(history.size(), kept.size() + plan.expired().size(), "every generation is kept or expired");
    assertTrue(plan.expired().stream().noneMatch(kept::contains));
    if (history.isEmpty()) {
      return;
    }
    Candidate newest = history.stream().max((a, b) -> Long.compare(a.index(), b.index())).orElseThrow();
    assertTrue(kept.contains(newest), "the newest is never deleted");
    if (!policy.isEnabled()) {
      assertTrue(plan.expired().isEmpty(), "no rule, nothing expires");
    }
    if (verified.isEmpty()) {
      assertTrue(plan.expired().isEmpty(), "no verified generation, nothing expires (fail closed)");
    } else {
      Candidate newestVerified = verified.stream().max((a, b) -> Long.compare(a.index(), b.index())).orElseThrow();
      assertTrue(kept.contains(newestVerified), "the newest verified generation is never deleted");
    }
    // Each rule's own demand, computed independently, is kept.
    List<Candidate> newestFirst = history.stream()
        .sorted((a, b) -> Long.compare(b.index(), a.index())).toList();
    newestFirst.stream().limit(policy.keepLast()).forEach(c -> assertTrue(kept.contains(c), "keep-last " + c));
    if (!policy.keepWithin().isZero()) {
      newestFirst.stream().filter(c -> !c.createdAt().isBefore(newest.createdAt().minus(policy.keepWithin())))
          .forEach(c -> assertTrue(kept.contains(c), "keep-within " + c));
    }
    assertNewestPerBucketKept(newestFirst, policy.keepDaily(), kept,
        c -> c.createdAt().atZone(ZoneOffset.UTC).toLocalDate().toString());
    assertNewestPerBucketKept(newestFirst, policy.keepHourly(), kept,
        c -> c.createdAt().atZone(ZoneOffset.UTC).toLocalDateTime().withMinute(0).withSecond(0).withNano(0).toString());
    assertNewestPerBucketKept(newestFirst, policy.keepMonthly(), kept,
        c -> c.createdAt().atZone(ZoneOffset.UTC).getYear() + "-" + c.createdAt().atZone(ZoneOffset.UTC).getMonthValue());
  }

  private static void assertNewestPerBucketKept(List<Candidate> newestFirst, int count, Set<Candidate> kept,
      java.util.function.Function<Candidate, String> bucket) {
    List<String> seen = new ArrayList<>();
    for (Candidate c : newestFirst) {
      String b = bucket.apply(c);
      if (!seen.contains(b)) {
        if (seen.size() == count) {
          return;
        }
        seen.add(b);
        assertTrue(kept.contains(c), "newest of bucket " + b);
      }
    }
  }

  /**
   * The whole collector over a store: random histories whose generations share chunks, collected at a
   * random time, never lose a chunk a kept manifest references, and keep what the plan keeps.
   */
  @Property(tries = 300)
  void noChunkOfAKeptGenerationIsEverDeleted(@ForAll("histories") List<Candidate> history,
      @ForAll("policies") RetentionPolicy policy, @ForAll("chunkChoices") List<Integer> chunkChoices) {
    MutableClock clock = new MutableClock(EPOCH);
    InMemoryObjectStore store = new InMemoryObjectStore(clock);
    String group = UUID.nameUUIDFromBytes(chunkChoices.toString().getBytes()).toString();
    List<GenerationId> ids = new ArrayList<>();
    for (int i = 0; i < history.size(); i++) {
      Candidate c = history.get(i);
      clock.now = c.createdAt();
      // Each generation has two files drawn from a small pool of chunks, so generations share chunks.
      int a = chunkChoices.get(i % chunkChoices.size());
      int b = chunkChoices.get((i + 1) % chunkChoices.size()) + 1;
      ids.add(publish(store, group, c, List.of(chunk(a), chunk(b))));
      verified(store, ids.get(i), c.createdAt(), true);
    }
    GarbageCollector.GcReport report = new GarbageCollector(store).collect("c", group, policy, true);
    assertNull(report.failure());
    Set<GenerationId> kept = report.kept().keySet();
    for (GenerationId id : ids) {
      boolean present = store.head(id.manifestKey()).isPresent();
      assertEquals(kept.contains(id), present, "manifest " + id + " kept iff planned");
      if (present) {
        new dev.ratisoffload.format.GenerationReader(store).verify(id); // all its chunks are still there
      }
    }
    if (!history.isEmpty()) {
      assertFalse(kept.isEmpty());
    }
    // Everything unreferenced is gone, and the sweep's marker too.
    assertTrue(store.list(Layout.activityPrefix("c", group)).isEmpty());
    Set<String> referenced = new HashSet<>();
    for (GenerationId id : kept) {
      new dev.ratisoffload.format.GenerationReader(store).readManifest(id).files()
          .forEach(f -> f.chunks().forEach(ch -> referenced.add(ch.sha256())));
    }
    Set<String> stored = store.list(Layout.chunkPrefix("c", group)).stream()
        .map(o -> o.key().substring(o.key().lastIndexOf('/') + 1)).collect(Collectors.toSet());
    assertEquals(referenced, stored);
  }

  @Provide
  Arbitrary<List<Boolean>> verifiedChoices() {
    return Arbitraries.of(true, false).list().ofMinSize(1).ofMaxSize(8);
  }

  /** Writes a verification record of a generation: intact, or damaged. */
  static void verified(ObjectStore store, GenerationId id, Instant at, boolean ok) {
    VerificationRecords.write(store, VerificationRecord.of(id, at, "test",
        ok ? List.of() : List.of(new VerificationRecord.Damage("0".repeat(64), VerificationRecord.Damage.MISSING, null)),
        null));
  }

  @Provide
  Arbitrary<List<Integer>> chunkChoices() {
    return Arbitraries.integers().between(0, 8).list().ofMinSize(1).ofMaxSize(10);
  }

  private static byte[] chunk(int n) {
    return ("chunk-" + n).getBytes();
  }

  static GenerationId publish(ObjectStore store, String group, Candidate c, List<byte[]> files) {
    List<Manifest.FileEntry> entries = new ArrayList<>();
    for (int i = 0; i < files.size(); i++) {
      byte[] bytes = files.get(i);
      String sha = Hashes.sha256Hex(bytes);
      store.putIfAbsent(Layout.chunkKey("c", group, sha), Content.of(bytes));
      entries.add(new Manifest.FileEntry("sm/f" + i, bytes.length, sha, null,
          List.of(new Manifest.ChunkRef(sha, bytes.length))));
    }
    Manifest m = new Manifest(Manifest.FORMAT_VERSION, "c", group, c.term(), c.index(),
        List.of(new Manifest.Peer("p", "h:1")), new Manifest.Publisher("p", c.term()), c.createdAt(), "t", entries);
    GenerationId id = GenerationId.of(m);
    store.putIfAbsent(id.manifestKey(), Content.of(ManifestCodec.encode(m)));
    return id;
  }

  /** A clock the test moves. */
  static final class MutableClock extends Clock {
    Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
