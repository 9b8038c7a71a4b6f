package dev.ratisoffload.kafka.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.format.SegmentWriter;
import dev.ratisoffload.kafka.format.SegmentWriter.EncodedSegment;
import dev.ratisoffload.kafka.format.TimestampKind;
import dev.ratisoffload.kafka.format.TopicManifest;
import dev.ratisoffload.kafka.format.TopicManifestCodec;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.InMemoryObjectStore;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** What {@code kafka list} and {@code kafka verify} print, for people and as JSON. */
class KafkaReportsTest {

  private static final Uuid ID = Uuid.fromString("q1ZHO0DHRjS8G2cH1V6wrQ");

  private static InMemoryObjectStore storeWithChain() {
    InMemoryObjectStore store = new InMemoryObjectStore();
    TopicManifest manifest = new TopicManifest(1, "c", "orders", ID.toString(), 2, 1, "read_committed",
        Map.of("cleanup.policy", "compact"), List.of("cleanup.policy"), Instant.parse("2026-01-01T00:00:00Z"), "t");
    store.putIfAbsent(new KafkaLayout.ManifestKey("c", "orders", ID, 1).key(),
        Content.of(TopicManifestCodec.encode(manifest)));
    String previous = null;
    long next = 0;
    for (int s = 0; s < 2; s++) {
      SegmentWriter w = new SegmentWriter(ID, 0, next, previous);
      for (int i = 0; i < 5; i++) {
        w.append(new BackupRecord(next + i * 2, 1_767_225_600_000L + next + i, TimestampKind.CREATE_TIME, null,
            new byte[] {1}, List.of()));
      }
      EncodedSegment segment = w.finish();
      store.putIfAbsent(SegmentKey.of("c", "orders", segment.header()).key(), segment.content());
      previous = segment.header().sha256();
      next = segment.header().lastOffset() + 1;
    }
    return store;
  }

  @Test
  void listShowsRangesCountsHolesAndNewestRecord() throws Exception {
    ListReport report = new BackupLister(storeWithChain(), 2).list("c", Optional.empty());
    ListReport.PartitionListing p = report.topics().get(0).partitions().get(0);
    assertEquals(0, p.firstOffset());
    assertEquals(17, p.lastOffset());
    assertEquals(10, p.records());
    assertEquals(8, p.holeOffsets());
    assertEquals(Instant.ofEpochMilli(1_767_225_600_000L + 9 + 4), p.newestRecord());

    String text = KafkaReports.text(report);
    assertTrue(text.contains("topic orders (id " + ID + "): 2 partitions, 10 records"), text);
    assertTrue(text.contains("0-17"), text);
    JsonNode json = new ObjectMapper().readTree(KafkaReports.json(report));
    assertEquals(10, json.at("/topics/0/partitions/0/records").asLong());
    assertEquals("2026-01-01T00:00:00.013Z", json.at("/topics/0/newestRecord").asText());
  }

  @Test
  void verifyListsHolesAndProblems() throws Exception {
    InMemoryObjectStore store = storeWithChain();
    VerifyReport ok = new ChainVerifier(store, 1).verify("c", Optional.empty());
    String text = KafkaReports.text(ok);
    assertTrue(ok.ok(), text);
    assertTrue(text.contains("partition 0: ok, offsets 0-17, 2/2 segments verified, 10 records, 8 hole offsets at 1, 3,"),
        text);
    assertTrue(text.contains("verified:"), text);

    String first = store.list(KafkaLayout.partitionPrefix("c", "orders", ID, 0)).get(0).key();
    store.delete(first);
    VerifyReport damaged = new ChainVerifier(store, 1).verify("c", Optional.empty());
    assertFalse(damaged.ok());
    String damagedText = KafkaReports.text(damaged);
    assertTrue(damagedText.contains("DAMAGED") && damagedText.contains("the start of the chain"), damagedText);
    JsonNode json = new ObjectMapper().readTree(KafkaReports.json(damaged));
    assertFalse(json.at("/topics/0/partitions/0/problems").isEmpty());
  }
}
