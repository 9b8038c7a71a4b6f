package dev.ratisoffload.kafka.read;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ratisoffload.kafka.RequestCountingStore;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.store.DirectoryObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A follower's poll costs the same on a chain of 100 segments and on one of 10,000: one listing that
 * returns only the segments written since the last poll. The segments are empty files at the real
 * keys (the follower only lists), laid out as the directory store lays out objects.
 */
class ChainFollowerListingTest {

  private static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");

  /** What one poll asked of the store: requests, and objects the listings returned. */
  record PollCost(int requests, int objectsListed) {}

  @Test
  void aPollListsOnlyWhatIsNewHoweverLongTheChain(@TempDir Path dir) throws IOException {
    PollCost shortChain = costOfAPollAfterTheFirst(dir.resolve("short"), 100);
    PollCost longChain = costOfAPollAfterTheFirst(dir.resolve("long"), 10_000);
    assertEquals(new PollCost(1, 1), shortChain, "one listing returning the one new segment");
    assertEquals(shortChain, longChain, "independent of the chain's length");
  }

  @Test
  void aFollowerResumingInsideTheChainListsOnlyWhatIsNewAfterItsFirstPoll(@TempDir Path dir) throws IOException {
    RequestCountingStore store = new RequestCountingStore(new DirectoryObjectStore(dir));
    writeSegments(dir, 0, 50);
    ChainFollower follower = new ChainFollower(store, "c", "orders", TOPIC_ID, 0, Optional.of(30L));
    List<StoredSegment> first = follower.poll();
    assertEquals(20, first.size());
    assertEquals(30L, first.get(0).firstOffset(), "the segments before offset 30 are passed over");
    assertEquals(List.of(), follower.poll());
    store.reset();
    writeSegments(dir, 50, 52);
    assertEquals(List.of(50L, 51L), follower.poll().stream().map(StoredSegment::firstOffset).toList());
    assertEquals(new PollCost(1, 2), new PollCost(store.requests(), store.objectsListed()));
  }

  private static PollCost costOfAPollAfterTheFirst(Path dir, int segments) throws IOException {
    RequestCountingStore store = new RequestCountingStore(new DirectoryObjectStore(dir));
    writeSegments(dir, 0, segments);
    ChainFollower follower = new ChainFollower(store, "c", "orders", TOPIC_ID, 0, Optional.empty());
    assertEquals(segments, follower.poll().size());
    writeSegments(dir, segments, segments + 1);
    store.reset();
    List<StoredSegment> next = follower.poll();
    assertEquals(List.of((long) segments), next.stream().map(StoredSegment::firstOffset).toList());
    return new PollCost(store.requests(), store.objectsListed());
  }

  /** Empty objects at the keys of one-record segments {@code from} to {@code to - 1}. */
  private static void writeSegments(Path root, long from, long to) throws IOException {
    for (long offset = from; offset < to; offset++) {
      Path file = root.resolve(new SegmentKey("c", "orders", TOPIC_ID, 0, offset, offset).key());
      Files.createDirectories(file.getParent());
      Files.createFile(file);
    }
  }
}
