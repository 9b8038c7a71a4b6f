package dev.ratisoffload.kafka.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.Codec;
import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.format.SegmentArbitraries;
import dev.ratisoffload.kafka.format.SegmentArbitraries.Step;
import dev.ratisoffload.kafka.format.SegmentWriter;
import dev.ratisoffload.kafka.format.SegmentWriter.EncodedSegment;
import dev.ratisoffload.kafka.format.TopicManifest;
import dev.ratisoffload.kafka.format.TopicManifestCodec;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.InMemoryObjectStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Assume;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.common.Uuid;

/**
 * {@code kafka verify} accepts every chain a backup writes, and reports every corrupted, missing,
 * reordered, replaced or renamed segment. (A chain cut at its very end cannot be told from a backup
 * that has not gone further; see {@link ChainVerifier}.)
 */
class ChainVerificationPropertiesTest {

  private static final String CLUSTER = "c1";
  private static final String TOPIC = "_events.v2";
  private static final Uuid TOPIC_ID = Uuid.fromString("-hbTf0XZQGyVYf3uBMLsSg");

  /** A partition's chain: per segment, its steps and the offsets skipped at its end. */
  record SegmentSpec(List<Step> steps, long trailingSkip) {}

  record Chain(long firstOffset, List<SegmentSpec> segments) {}

  @Provide
  Arbitrary<Chain> chains() {
    Arbitrary<SegmentSpec> spec = Combinators.combine(SegmentArbitraries.steps().list().ofMaxSize(6),
            Arbitraries.longs().between(0, 3))
        .as(SegmentSpec::new)
        .filter(s -> !s.steps().isEmpty() || s.trailingSkip() > 0);
    return Combinators.combine(Arbitraries.longs().between(0, 1_000_000), spec.list().ofMinSize(1).ofMaxSize(6))
        .as(Chain::new);
  }

  /** Stores a topic manifest and the chain (on partition 0), and returns the segments in order. */
  private static List<EncodedSegment> store(InMemoryObjectStore store, Chain chain) {
    TopicManifest manifest = new TopicManifest(1, CLUSTER, TOPIC, TOPIC_ID.toString(), 1, 1, "read_committed",
        Map.of("cleanup.policy", "compact"), List.of("cleanup.policy"), Instant.EPOCH, "test");
    store.putIfAbsent(new KafkaLayout.ManifestKey(CLUSTER, TOPIC, TOPIC_ID, 1).key(),
        Content.of(TopicManifestCodec.encode(manifest)));
    List<EncodedSegment> segments = new ArrayList<>();
    long next = chain.firstOffset();
    String previous = null;
    for (SegmentSpec spec : chain.segments()) {
      EncodedSegment segment = encode(spec, next, previous, 0);
      store.putIfAbsent(key(segment), segment.content());
      segments.add(segment);
      next = segment.header().lastOffset() + 1;
      previous = segment.header().sha256();
    }
    return segments;
  }

  private static EncodedSegment encode(SegmentSpec spec, long first, String previous, long timestampShift) {
    SegmentWriter writer = new SegmentWriter(TOPIC_ID, 0, first, previous, Codec.DEFLATE, 1);
    long next = first;
    for (Step step : spec.steps()) {
      next += step.skipped();
      BackupRecord r = step.record();
      writer.append(new BackupRecord(next, r.timestamp() + timestampShift, r.timestampKind(), r.key(), r.value(),
          r.headers()));
      next++;
    }
    writer.advanceTo(next + spec.trailingSkip());
    return writer.finish();
  }

  private static String key(EncodedSegment segment) {
    return SegmentKey.of(CLUSTER, TOPIC, segment.header()).key();
  }

  private static VerifyReport verify(InMemoryObjectStore store) {
    return new ChainVerifier(store, 1).verify(CLUSTER, Optional.empty());
  }

  @Property(tries = 80)
  void aChainAsWrittenIsAcceptedWithItsRecordsAndHoles(@ForAll("chains") Chain chain) {
    InMemoryObjectStore store = new InMemoryObjectStore();
    List<EncodedSegment> segments = store(store, chain);

    VerifyReport report = verify(store);

    assertTrue(report.ok(), () -> report.allProblems().toString());
    VerifyReport.PartitionResult p = report.topics().get(0).partitions().get(0);
    assertEquals(segments.size(), p.segmentsVerified());
    assertEquals(segments.stream().mapToLong(s -> s.header().recordCount()).sum(), p.records());
    assertEquals(segments.stream().mapToLong(s -> s.header().holeOffsets()).sum(), p.holeOffsets());
    assertEquals(chain.firstOffset(), p.firstOffset());
  }

  enum Damage { FLIP_BYTE, TRUNCATE, EXTEND, DELETE_NOT_LAST, SWAP_CONTENTS, MOVE_TO_OTHER_RANGE,
    REPLACE_NOT_LAST, STRAY_OBJECT, DAMAGE_MANIFEST, DELETE_MANIFEST }

  @Property(tries = 300)
  void anyDamageIsReported(@ForAll("chains") Chain chain, @ForAll Damage damage,
      @ForAll("indexes") int a, @ForAll("indexes") int b) {
    InMemoryObjectStore store = new InMemoryObjectStore();
    List<EncodedSegment> segments = store(store, chain);
    int n = segments.size();
    int i = Math.floorMod(a, n);
    String key = key(segments.get(i));
    byte[] bytes = store.bytes(key);
    String manifestKey = new KafkaLayout.ManifestKey(CLUSTER, TOPIC, TOPIC_ID, 1).key();
    switch (damage) {
      case FLIP_BYTE -> {
        bytes[Math.floorMod(b, bytes.length)] ^= (byte) (1 + Math.floorMod(a + b, 255));
        store.overwrite(key, bytes);
      }
      case TRUNCATE -> store.overwrite(key, Arrays.copyOf(bytes, Math.floorMod(b, bytes.length)));
      case EXTEND -> store.overwrite(key, Arrays.copyOf(bytes, bytes.length + 1 + Math.floorMod(b, 64)));
      case DELETE_NOT_LAST -> {
        // deleting the only (last) segment is a chain cut at its end: undetectable by design
        Assume.that(n >= 2);
        store.delete(key(segments.get(Math.floorMod(a, n - 1))));
      }
      case SWAP_CONTENTS -> {
        Assume.that(n >= 2);
        int j = (i + 1 + Math.floorMod(b, n - 1)) % n;
        String other = key(segments.get(j));
        byte[] otherBytes = store.bytes(other);
        store.overwrite(other, bytes);
        store.overwrite(key, otherBytes);
      }
      case MOVE_TO_OTHER_RANGE -> {
        SegmentKey id = KafkaLayout.parseSegmentKey(key).orElseThrow();
        long shift = 1 + Math.floorMod(b, 1000);
        store.delete(key);
        store.overwrite(new SegmentKey(CLUSTER, TOPIC, TOPIC_ID, 0, id.firstOffset() + shift,
            id.lastOffset() + shift).key(), bytes);
      }
      case REPLACE_NOT_LAST -> {
        // a valid segment replacing the last one is indistinguishable from the original
        Assume.that(n >= 2);
        int j = Math.floorMod(a, n - 1);
        EncodedSegment original = segments.get(j);
        SegmentSpec spec = chain.segments().get(j);
        Assume.that(!spec.steps().isEmpty()); // else re-encoding yields the same bytes
        EncodedSegment forged = encode(spec, original.header().firstOffset(), original.header().previousSha256(), 1);
        store.overwrite(key(original), forged.content().toByteArray());
      }
      case STRAY_OBJECT -> store.overwrite(KafkaLayout.partitionPrefix(CLUSTER, TOPIC, TOPIC_ID, 0) + "stray.segment",
          bytes);
      case DAMAGE_MANIFEST -> {
        byte[] m = store.bytes(manifestKey);
        m[Math.floorMod(b, m.length)] ^= 0x20;
        store.overwrite(manifestKey, m);
      }
      case DELETE_MANIFEST -> store.delete(manifestKey);
      default -> throw new AssertionError(damage);
    }

    VerifyReport report = verify(store);

    assertFalse(report.ok(), () -> damage + " of segment " + i + " of " + n + " went unreported");
  }

  @Provide
  Arbitrary<Integer> indexes() {
    return Arbitraries.integers().between(0, 1 << 20);
  }
}
