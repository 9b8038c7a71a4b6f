package dev.ratisoffload.kafka.restore;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.Codec;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.format.OffsetMap;
import dev.ratisoffload.kafka.format.SegmentWriter;
import dev.ratisoffload.kafka.format.SegmentWriter.EncodedSegment;
import dev.ratisoffload.kafka.format.TimestampKind;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.PartitionChain;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.store.InMemoryObjectStore;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.common.Uuid;

/**
 * The map a drained renumbering standby rebuilds from the chain (headers for segments without holes,
 * records for the others) translates every offset as the records themselves say it must.
 */
class ChainOffsetMapperPropertiesTest {

  private static final Uuid TOPIC_ID = Uuid.fromString("q1ZHO0DHRjS8G2cH1V6wrQ");

  /** Per segment, the offsets skipped before each record (0 mostly); a segment may end with a hole. */
  @Provide
  Arbitrary<List<List<Integer>>> chains() {
    Arbitrary<Integer> gap = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(5, Arbitraries.just(0)),
        net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(1, 4)));
    return gap.list().ofMinSize(1).ofMaxSize(12).list().ofMinSize(1).ofMaxSize(6);
  }

  @Property(tries = 150)
  void theRebuiltMapTranslatesAsTheRecordsSay(@ForAll("chains") List<List<Integer>> segments,
      @ForAll @IntRange(min = 0, max = 100) int restoredPercent) {
    InMemoryObjectStore store = new InMemoryObjectStore();
    List<Long> sources = new ArrayList<>();
    long next = 7;
    String previous = null;
    for (List<Integer> gaps : segments) {
      SegmentWriter writer = new SegmentWriter(TOPIC_ID, 0, next, previous, Codec.DEFLATE, 1);
      for (int gap : gaps) {
        next += gap;
        writer.append(new BackupRecord(next, 1_700_000_000_000L, TimestampKind.CREATE_TIME, null, new byte[] {1},
            List.of()));
        sources.add(next++);
      }
      EncodedSegment segment = writer.finish();
      store.putIfAbsent(SegmentKey.of("c1", "t", segment.header()).key(), segment.content());
      previous = segment.header().sha256();
    }
    PartitionChain chain = KafkaBackupCatalog.scan(store, "c1", "t").incarnation("t", TOPIC_ID).orElseThrow()
        .partition(0);
    int restored = sources.size() * restoredPercent / 100;

    OffsetMap.PartitionMap map = ChainOffsetMapper.map(new SegmentSource(store), chain, restored);

    for (long committed = 0; committed <= next + 2; committed++) {
      long expected = restored; // past the last restored record: the standby's end
      for (int i = 0; i < restored; i++) {
        if (sources.get(i) >= committed) {
          expected = i;
          break;
        }
      }
      assertEquals(expected, map.translate(committed), "committed offset " + committed);
    }
  }
}
