package dev.ratisoffload.kafka.backup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.RequestCountingStore;
import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.format.SegmentWriter;
import dev.ratisoffload.kafka.format.SegmentWriter.EncodedSegment;
import dev.ratisoffload.kafka.format.TimestampKind;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backup resuming a chain of 10,000 segments asks the store hardly more than one resuming a chain of
 * 100: the requests grow with the logarithm of the chain's length, and each listing returns one key.
 * Every segment is 10 offsets; the last two are real segments (the resume reads them), the others are
 * empty objects at their keys, laid out as the directory store lays out objects.
 */
class ResumePointTest {

  private static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
  private static final int SPAN = 10;

  record ResumeCost(int requests, int objectsListed) {}

  @Test
  void theResumesRequestsGrowOnlyLogarithmicallyWithTheChainsLength(@TempDir Path dir) throws IOException {
    ResumeCost shortChain = costOfResuming(dir.resolve("short"), 100);
    ResumeCost longChain = costOfResuming(dir.resolve("long"), 10_000);
    // Two searches (the last segment, the one before it), each galloping then bisecting: at most four
    // more probes per doubling of the chain; log2(10,000 / 100) < 7 doublings.
    assertTrue(longChain.requests() <= shortChain.requests() + 4 * 7, shortChain + " then " + longChain);
    assertTrue(longChain.requests() <= 80, "bounded by the offsets' logarithm: " + longChain);
    assertTrue(longChain.objectsListed() <= longChain.requests() + 2, "listings of a key or two: " + longChain);
  }

  @Test
  void aDamagedLastSegmentStopsTheResumeAndNamesIt(@TempDir Path dir) throws IOException {
    writeChain(dir, 3);
    Path last = dir.resolve(new SegmentKey("c", "orders", TOPIC_ID, 0, 20, 29).key());
    byte[] bytes = Files.readAllBytes(last);
    bytes[bytes.length - 1] ^= 1;
    Files.write(last, bytes);
    KafkaOffloadException e = assertThrows(KafkaOffloadException.class,
        () -> new ResumePoint(new SegmentSource(new DirectoryObjectStore(dir))).find("c", "orders", TOPIC_ID, 0));
    assertEquals(KafkaOffloadException.Kind.INCONSISTENT, e.kind());
    assertTrue(e.getMessage().contains("delete " + new SegmentKey("c", "orders", TOPIC_ID, 0, 20, 29).key()),
        e.getMessage());
  }

  private static ResumeCost costOfResuming(Path dir, int segments) throws IOException {
    String lastSha = writeChain(dir, segments);
    RequestCountingStore store = new RequestCountingStore(new DirectoryObjectStore(dir));
    Optional<ResumePoint.ChainTail> tail = new ResumePoint(new SegmentSource(store)).find("c", "orders", TOPIC_ID, 0);
    assertEquals(Optional.of(new ResumePoint.ChainTail((long) segments * SPAN, lastSha)), tail);
    return new ResumeCost(store.requests(), store.objectsListed());
  }

  /** A chain of {@code segments} segments of {@value SPAN} offsets; returns the SHA-256 of the last. */
  private static String writeChain(Path root, int segments) throws IOException {
    for (long i = 0; i < segments - 2; i++) {
      Path file = root.resolve(new SegmentKey("c", "orders", TOPIC_ID, 0, i * SPAN, i * SPAN + SPAN - 1).key());
      Files.createDirectories(file.getParent());
      Files.createFile(file);
    }
    EncodedSegment previous = segment((segments - 2L) * SPAN, null);
    EncodedSegment last = segment((segments - 1L) * SPAN, previous.header().sha256());
    ObjectStore store = new DirectoryObjectStore(root);
    for (EncodedSegment s : List.of(previous, last)) {
      store.putIfAbsent(SegmentKey.of("c", "orders", s.header()).key(), s.content());
    }
    return last.header().sha256();
  }

  private static EncodedSegment segment(long first, String previousSha256) {
    SegmentWriter writer = new SegmentWriter(TOPIC_ID, 0, first, previousSha256);
    for (int i = 0; i < SPAN; i++) {
      writer.append(new BackupRecord(first + i, 1000 + i, TimestampKind.CREATE_TIME, null, new byte[] {(byte) i},
          List.of()));
    }
    return writer.finish();
  }
}
