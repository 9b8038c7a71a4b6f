package dev.ratisoffload.kafka.read;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.KafkaLayout.ChainStartKey;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.InMemoryObjectStore;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.common.Uuid;

/**
 * {@link ChainEnd}'s probes find the same last two segments as a listing of the whole chain, whatever
 * the chain holds: gaps, overlaps, two segments starting at one offset, offsets near the largest a key
 * can name, chain-start markers and stray names among the segments' keys, other partitions beside it.
 */
class ChainEndPropertiesTest {

  private static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");

  record Range(long first, long last) {}

  @Property(tries = 300)
  void theProbesFindWhatAWholeListingFinds(@ForAll("chains") List<Range> ranges, @ForAll("strays") List<String> strays) {
    InMemoryObjectStore store = new InMemoryObjectStore();
    for (Range r : ranges) {
      store.putIfAbsent(new SegmentKey("c", "t", TOPIC_ID, 1, r.first(), r.last()).key(), Content.of(new byte[] {1}));
    }
    store.putIfAbsent(new SegmentKey("c", "t", TOPIC_ID, 2, 7, 9).key(), Content.of(new byte[] {1}));
    store.putIfAbsent(new SegmentKey("c", "t", TOPIC_ID, 0, 900, 901).key(), Content.of(new byte[] {1}));
    store.putIfAbsent(new ChainStartKey("c", "t", TOPIC_ID, 1, 3).key(), Content.of(new byte[] {1}));
    String prefix = KafkaLayout.partitionPrefix("c", "t", TOPIC_ID, 1);
    strays.forEach(name -> store.putIfAbsent(prefix + name, Content.of(new byte[] {1})));

    List<StoredSegment> listed = KafkaBackupCatalog.scan(store, "c").incarnation("t", TOPIC_ID)
        .map(i -> i.partition(1).segments()).orElse(List.of());
    Optional<ChainEnd.Tail> found = new ChainEnd(store).find("c", "t", TOPIC_ID, 1);

    if (listed.isEmpty()) {
      assertEquals(Optional.empty(), found);
      return;
    }
    StoredSegment last = listed.get(listed.size() - 1);
    Optional<StoredSegment> previous = listed.size() > 1 ? Optional.of(listed.get(listed.size() - 2)) : Optional.empty();
    assertEquals(Optional.of(new ChainEnd.Tail(last, previous)), found);
  }

  @Provide
  Arbitrary<List<Range>> chains() {
    Arbitrary<Long> small = Arbitraries.longs().between(0, 5_000);
    Arbitrary<Long> huge = Arbitraries.longs().between(Long.MAX_VALUE - 1_000, Long.MAX_VALUE - 100);
    Arbitrary<Long> first = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(9, small), net.jqwik.api.Tuple.of(1, huge));
    Arbitrary<Range> range = Combinators.combine(first, Arbitraries.longs().between(0, 50))
        .as((f, length) -> new Range(f, f + length));
    return range.list().ofMaxSize(40);
  }

  /** Names in the partition's directory that are no segment's: before, among and after the segments' keys. */
  @Provide
  Arbitrary<List<String>> strays() {
    return Arbitraries.of("-early", "0000000000000000007-junk", "0000000000000000007.tmp", "12", "zzz",
        "chain-start-x").list().uniqueElements().ofMaxSize(3);
  }
}
