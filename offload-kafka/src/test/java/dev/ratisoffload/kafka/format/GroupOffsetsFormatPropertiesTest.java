package dev.ratisoffload.kafka.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.format.KafkaLayout.GroupOffsetsKey;
import dev.ratisoffload.kafka.format.KafkaLayout.OffsetMapKey;
import dev.ratisoffload.primitives.HashedJson;
import dev.ratisoffload.store.IntegrityException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.apache.kafka.common.Uuid;

/** The consumer-group offset snapshot and the offset map: round trips, translation, hostile input. */
class GroupOffsetsFormatPropertiesTest {

  private static final Uuid TOPIC_ID = Uuid.fromString("q1ZHO0DHRjS8G2cH1V6wrQ");
  private static final Uuid TARGET_ID = Uuid.fromString("-X1ZHO0DHRjS8G2cH1V6wr");
  private static final Instant AT = Instant.ofEpochMilli(1_780_000_000_123L);
  private static final GroupOffsetsKey SNAPSHOT_KEY = new GroupOffsetsKey("prod", "orders", TOPIC_ID, AT.toEpochMilli());
  private static final OffsetMapKey MAP_KEY = new OffsetMapKey("prod", "orders", TOPIC_ID, TARGET_ID, AT.toEpochMilli());

  /** A partition as a restore writes it: records at increasing source offsets, holes between some of them. */
  record Written(long firstSource, List<Integer> gaps) {
    /** The source offset of each record, in order; the n-th record is written at target offset n. */
    long[] sources() {
      long[] sources = new long[gaps.size()];
      long next = firstSource;
      for (int i = 0; i < gaps.size(); i++) {
        next += gaps.get(i);
        sources[i] = next;
        next++;
      }
      return sources;
    }

    OffsetMap.PartitionMap map() {
      OffsetMap.Builder builder = new OffsetMap.Builder(0);
      long[] sources = sources();
      for (int i = 0; i < sources.length; i++) {
        builder.add(sources[i], i);
      }
      return builder.build(sources.length == 0 ? firstSource : sources[sources.length - 1] + 1);
    }
  }

  @Provide
  Arbitrary<Written> written() {
    Arbitrary<Integer> gap = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(6, Arbitraries.just(0)), net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(1, 50)));
    return Combinators.combine(Arbitraries.longs().between(0, 1_000_000), gap.list().ofMaxSize(300)).as(Written::new);
  }

  @Property(tries = 300)
  void translationResumesAtTheFirstRecordAtOrAfterTheCommittedOffset(@ForAll("written") Written written,
      @ForAll @LongRange(min = 0, max = 2_000_000) long committed) {
    OffsetMap.PartitionMap map = written.map();
    long[] sources = written.sources();
    long expected = sources.length; // past the last record: the target's end
    for (int i = 0; i < sources.length; i++) {
      if (sources[i] >= committed) {
        expected = i;
        break;
      }
    }
    assertEquals(expected, map.translate(committed));
    for (int i = 0; i < sources.length; i++) { // every record's own offset maps to where it was written
      assertEquals(i, map.translate(sources[i]));
    }
  }

  @Property(tries = 200)
  void aMapIsAsSmallAsTheHolesAreFewAndReadsBackEqual(@ForAll("written") Written written) {
    OffsetMap.PartitionMap partition = written.map();
    long holes = written.gaps().stream().skip(1).filter(g -> g > 0).count();
    assertEquals(written.gaps().isEmpty() ? 0 : holes + 1, partition.runs().size());
    OffsetMap map = new OffsetMap(1, "prod", "orders", TOPIC_ID.toString(), "orders-restored", TARGET_ID.toString(),
        AT, Map.of(3, partition));
    OffsetMap read = OffsetMapCodec.decode(OffsetMapCodec.encode(map), MAP_KEY);
    assertEquals(partition, read.partitions().get(3));
    assertEquals(map.targetTopic(), read.targetTopic());
  }

  @Provide
  Arbitrary<GroupOffsetsSnapshot> snapshots() {
    Arbitrary<String> group = Arbitraries.strings().withCharRange(' ', '\u3000').ofMinLength(1).ofMaxLength(40)
        .filter(g -> GroupOffsetsCodec.groupIdProblem(g) == null);
    Arbitrary<Map<Integer, Long>> offsets = Arbitraries.maps(Arbitraries.integers().between(0, 1000),
        Arbitraries.longs().between(0, Long.MAX_VALUE)).ofMinSize(1).ofMaxSize(8);
    return Arbitraries.maps(group, offsets).ofMaxSize(6)
        .map(groups -> new GroupOffsetsSnapshot(1, "prod", "orders", TOPIC_ID.toString(), AT, groups));
  }

  @Property(tries = 200)
  void snapshotsReadBackEqual(@ForAll("snapshots") GroupOffsetsSnapshot snapshot) {
    GroupOffsetsSnapshot read = GroupOffsetsCodec.decode(GroupOffsetsCodec.encode(snapshot), SNAPSHOT_KEY);
    assertEquals(snapshot, read);
  }

  @Property(tries = 300)
  void anyChangedByteOfASnapshotIsRefusedWithItsKey(@ForAll("snapshots") GroupOffsetsSnapshot snapshot,
      @ForAll @IntRange(min = 0, max = 100_000) int at, @ForAll byte with) {
    byte[] object = GroupOffsetsCodec.encode(snapshot);
    int i = at % object.length;
    if (object[i] == with) {
      return;
    }
    object[i] = with;
    IntegrityException e = assertThrows(IntegrityException.class, () -> GroupOffsetsCodec.decode(object, SNAPSHOT_KEY));
    assertTrue(e.getMessage().contains(SNAPSHOT_KEY.key() + " is corrupt"), e.getMessage());
  }

  @Property(tries = 300)
  void arbitraryBytesAreRefusedAsCorrupt(@ForAll @Size(max = 400) byte[] bytes, @ForAll boolean withHeader) {
    byte[] object = withHeader ? concat(("ratis-offload-kafka-group-offsets 1 sha256=0\n").getBytes(
        StandardCharsets.US_ASCII), bytes) : bytes;
    assertThrows(IntegrityException.class, () -> GroupOffsetsCodec.decode(object, SNAPSHOT_KEY));
    assertThrows(IntegrityException.class, () -> OffsetMapCodec.decode(object, MAP_KEY));
  }

  /** Bodies whose hash is right but whose content is not a snapshot: each refused, naming what is wrong. */
  @Example
  void wellHashedHostileSnapshotsAreRefusedNamingTheField() {
    Map<String, Object> base = snapshotJson(Map.of("billing", Map.of("0", 5)));
    assertRefused(with(base, "groups", Map.of("bill\u001b[2Jing", Map.of("0", 5))), "control characters");
    assertRefused(with(base, "groups", Map.of("billing", Map.of("0", -1))), "partition 0 at offset -1");
    assertRefused(with(base, "groups", Map.of("billing", Map.of("-3", 1))), "partition -3");
    assertRefused(with(base, "groups", Map.of("billing", Map.of("x", 1))), "unreadable JSON");
    assertRefused(with(base, "groups", Map.of("billing", Map.of())), "without offsets");
    assertRefused(with(base, "groups", Map.of("", Map.of("0", 1))), "group id ''");
    assertRefused(with(base, "topicId", "AAAAAAAAAAAAAAAAAAAAAA"), "topic id");
    assertRefused(with(base, "takenAt", "2026-01-01T00:00:00Z"), "not what its key names");
    assertRefused(with(base, "extra", 1), "unreadable JSON");
    Map<String, Object> missing = new LinkedHashMap<>(base);
    missing.remove("groups");
    assertRefused(missing, "unreadable JSON");
  }

  @Example
  void wellHashedHostileMapsAreRefused() {
    assertMapRefused(List.of(new long[] {5, 0, 2}, new long[] {6, 2, 1}), 10, 3, "overlaps");
    assertMapRefused(List.of(new long[] {5, 0, 2}, new long[] {7, 2, 1}), 10, 3, "continues");
    assertMapRefused(List.of(new long[] {5, 0, 0}), 10, 0, "length >= 1");
    assertMapRefused(List.of(new long[] {Long.MAX_VALUE, 0, 2}), Long.MAX_VALUE, 2, "length >= 1");
    assertMapRefused(List.of(new long[] {5, 0, 2}), 10, 9, "do not follow");
    assertMapRefused(List.of(new long[] {5, 0, 2}), 6, 2, "do not follow");
  }

  @Property(tries = 100)
  void keysParseBackAndOtherNamesDoNot(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long millis) {
    GroupOffsetsKey snapshot = new GroupOffsetsKey("prod", ".internal", TOPIC_ID, millis);
    OffsetMapKey map = new OffsetMapKey("prod", ".internal", TOPIC_ID, TARGET_ID, millis);
    assertEquals(snapshot, KafkaLayout.parseGroupOffsetsKey(snapshot.key()).orElseThrow());
    assertEquals(map, KafkaLayout.parseOffsetMapKey(map.key()).orElseThrow());
    assertTrue(KafkaLayout.parseGroupOffsetsKey(map.key()).isEmpty());
    assertTrue(KafkaLayout.parseOffsetMapKey(snapshot.key()).isEmpty());
    assertTrue(KafkaLayout.parseGroupOffsetsKey(snapshot.key() + "x").isEmpty());
  }

  @Example
  void keyOrderIsTimeOrder() {
    List<String> keys = new ArrayList<>();
    for (long millis : new long[] {9, 10, 1_000, 1_780_000_000_123L}) {
      keys.add(new GroupOffsetsKey("prod", "orders", TOPIC_ID, millis).key());
    }
    List<String> sorted = new ArrayList<>(keys);
    sorted.sort(null);
    assertEquals(keys, sorted);
  }

  private static Map<String, Object> snapshotJson(Object groups) {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("format", 1);
    json.put("cluster", "prod");
    json.put("topic", "orders");
    json.put("topicId", TOPIC_ID.toString());
    json.put("takenAt", AT.toString());
    json.put("groups", groups);
    return json;
  }

  private static Map<String, Object> with(Map<String, Object> json, String field, Object value) {
    Map<String, Object> copy = new LinkedHashMap<>(json);
    copy.put(field, value);
    return copy;
  }

  private static void assertRefused(Map<String, Object> json, String expected) {
    byte[] object = HashedJson.encode(GroupOffsetsCodec.MAGIC, 1, json);
    IntegrityException e = assertThrows(IntegrityException.class, () -> GroupOffsetsCodec.decode(object, SNAPSHOT_KEY));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
    assertTrue(e.getMessage().contains("is corrupt"), e.getMessage());
  }

  private static void assertMapRefused(List<long[]> runs, long sourceEnd, long targetEnd, String expected) {
    Map<String, Object> partition = new LinkedHashMap<>();
    partition.put("runs", runs);
    partition.put("sourceEnd", sourceEnd);
    partition.put("targetEnd", targetEnd);
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("format", 1);
    json.put("cluster", "prod");
    json.put("topic", "orders");
    json.put("topicId", TOPIC_ID.toString());
    json.put("targetTopic", "orders-restored");
    json.put("targetTopicId", TARGET_ID.toString());
    json.put("writtenAt", AT.toString());
    json.put("partitions", new TreeMap<>(Map.of("0", partition)));
    byte[] object = HashedJson.encode(OffsetMapCodec.MAGIC, 1, json);
    IntegrityException e = assertThrows(IntegrityException.class, () -> OffsetMapCodec.decode(object, MAP_KEY));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
