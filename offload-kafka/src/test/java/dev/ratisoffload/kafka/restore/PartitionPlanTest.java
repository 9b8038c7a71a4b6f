package dev.ratisoffload.kafka.restore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.Codec;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.format.SegmentEntry;
import dev.ratisoffload.kafka.format.SegmentReader;
import dev.ratisoffload.kafka.format.SegmentWriter;
import dev.ratisoffload.kafka.format.SegmentWriter.EncodedSegment;
import dev.ratisoffload.kafka.format.TimestampKind;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.PartitionChain;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.IntegrityException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The verify pass keeps the bodies that fit its budget; the send pass reads the others again, checked. */
class PartitionPlanTest {

  private static final String CLUSTER = "c1";
  private static final String TOPIC = "orders";
  private static final Uuid TOPIC_ID = Uuid.fromString("q1ZHO0DHRjS8G2cH1V6wrQ");

  @TempDir
  Path dir;
  private DirectoryObjectStore store;
  private SegmentSource source;
  private final List<EncodedSegment> written = new ArrayList<>();

  @BeforeEach
  void storeAChainOfThreeSegments() {
    store = new DirectoryObjectStore(dir);
    source = new SegmentSource(store);
    String previous = null;
    for (int s = 0; s < 3; s++) {
      SegmentWriter writer = uncompressed(s * 10L, previous);
      for (int i = 0; i < 10; i++) {
        long offset = s * 10L + i;
        writer.append(new BackupRecord(offset, 1_000 + offset, TimestampKind.CREATE_TIME, null,
            ("value " + offset).getBytes(StandardCharsets.UTF_8), List.of()));
      }
      EncodedSegment segment = writer.finish();
      store.putIfAbsent(key(segment), segment.content());
      written.add(segment);
      previous = segment.header().sha256();
    }
  }

  /** Uncompressed, so that records of the same sizes make objects of the same size. */
  private static SegmentWriter uncompressed(long first, String previous) {
    return new SegmentWriter(TOPIC_ID, 0, first, previous, Codec.NONE, 0);
  }

  private static String key(EncodedSegment segment) {
    return SegmentKey.of(CLUSTER, TOPIC, segment.header()).key();
  }

  private PartitionChain chain() {
    return KafkaBackupCatalog.scan(store, CLUSTER, TOPIC).incarnations().get(0).partition(0);
  }

  private List<SegmentEntry> sendPassReads(PartitionPlan plan) {
    List<SegmentEntry> entries = new ArrayList<>();
    for (PartitionPlan.VerifiedSegment verified : plan.segments()) {
      try (SegmentReader reader = verified.reopen(source)) {
        entries.addAll(reader.readAll());
      }
    }
    return entries;
  }

  @Test
  void segmentsWithinTheBudgetAreKeptAndNotReadFromTheStoreAgain() {
    long firstTwo = written.get(0).header().decodedBodyLength() + written.get(1).header().decodedBodyLength();
    PartitionPlan plan = PartitionPlan.scan(source, chain(), Optional.empty(), new KeptSegments(firstTwo));

    assertEquals(30, plan.records());
    assertNotNull(plan.segments().get(0).body());
    assertNotNull(plan.segments().get(1).body());
    assertNull(plan.segments().get(2).body(), "the third did not fit the budget");
    store.delete(key(written.get(0)));
    store.delete(key(written.get(1)));

    List<SegmentEntry> entries = sendPassReads(plan);

    assertEquals(30, entries.size());
    assertEquals(29, ((BackupRecord) entries.get(29)).offset());
  }

  @Test
  void aBodyPastTheCutIsNotKeptAndGivesItsRoomBack() {
    long all = written.stream().mapToLong(w -> w.header().decodedBodyLength()).sum();
    KeptSegments keep = new KeptSegments(all);
    // The last record restored is offset 19: the third segment is read (its hash covers it) but not sent.
    PartitionPlan plan = PartitionPlan.scan(source, chain(), Optional.of(java.time.Instant.ofEpochMilli(1_019)), keep);

    assertEquals(20, plan.records());
    assertEquals(2, plan.segments().size());
    long third = written.get(2).header().decodedBodyLength();
    assertTrue(keep.tryKeep(third), "the third segment's room was given back");
    assertFalse(keep.tryKeep(1), "and nothing more");
  }

  @Test
  void aSegmentReadAgainMustBeTheOneTheVerifyPassRead() {
    PartitionPlan plan = PartitionPlan.scan(source, chain(), Optional.empty(), new KeptSegments(0));
    assertTrue(plan.segments().stream().allMatch(v -> v.body() == null));
    // Another valid segment of the same size for the same range, other values: a rewritten backup.
    SegmentWriter other = uncompressed(10, written.get(0).header().sha256());
    for (long offset = 10; offset < 20; offset++) {
      other.append(new BackupRecord(offset, 1_000 + offset, TimestampKind.CREATE_TIME, null,
          ("VALUE " + offset).getBytes(StandardCharsets.UTF_8), List.of()));
    }
    EncodedSegment replacement = other.finish();
    store.delete(key(written.get(1)));
    store.putIfAbsent(key(replacement), replacement.content());

    IntegrityException e = assertThrows(IntegrityException.class, () -> sendPassReads(plan));

    assertTrue(e.getMessage().contains("changed after the verify pass read it"), e.getMessage());
  }
}
