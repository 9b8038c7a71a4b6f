package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.format.RecordHeader;
import dev.ratisoffload.kafka.format.SegmentWriter;
import dev.ratisoffload.kafka.format.SegmentWriter.EncodedSegment;
import dev.ratisoffload.kafka.format.TimestampKind;
import dev.ratisoffload.kafka.format.TopicManifest;
import dev.ratisoffload.kafka.format.TopicManifestCodec;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.DirectoryObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.common.Uuid;

/** {@code offload kafka verify} exits 3, with one line, on any corrupted, missing or reordered segment. */
class KafkaVerifyPropertiesTest {

  private static final Uuid ID = Uuid.fromString("_dMDy8pzT0ibq3tvyBcvlQ");

  enum Damage { NONE, FLIP_BYTE, TRUNCATE, DELETE_NOT_LAST, SWAP_TWO, RENAME_RANGE }

  @Provide
  Arbitrary<List<Integer>> segmentSizes() {
    return Arbitraries.integers().between(1, 20).list().ofMinSize(2).ofMaxSize(5);
  }

  @Property(tries = 60)
  void verifyExits3OnDamageAnd0Otherwise(@ForAll("segmentSizes") List<Integer> sizes, @ForAll Damage damage,
      @ForAll @IntRange(min = 0, max = 100_000) int where) throws IOException {
    Path dir = Files.createTempDirectory("kafka-verify-");
    try (DirectoryObjectStore store = new DirectoryObjectStore(dir)) {
      List<String> keys = writeChain(store, sizes);
      int n = keys.size();
      String key = keys.get(where % n);
      Path file = dir.resolve(key);
      switch (damage) {
        case NONE -> { }
        case FLIP_BYTE -> {
          byte[] b = Files.readAllBytes(file);
          b[where % b.length] ^= (byte) (1 + where % 255);
          Files.write(file, b);
        }
        case TRUNCATE -> {
          byte[] b = Files.readAllBytes(file);
          Files.write(file, java.util.Arrays.copyOf(b, where % b.length));
        }
        case DELETE_NOT_LAST -> Files.delete(dir.resolve(keys.get(where % (n - 1))));
        case SWAP_TWO -> {
          Path other = dir.resolve(keys.get((where % n + 1 + where % (n - 1)) % n));
          byte[] a = Files.readAllBytes(file);
          Files.write(file, Files.readAllBytes(other));
          Files.write(other, a);
        }
        case RENAME_RANGE -> {
          SegmentKey id = KafkaLayout.parseSegmentKey(key).orElseThrow();
          Path moved = dir.resolve(new SegmentKey(id.cluster(), id.topic(), id.topicId(), id.partition(),
              id.firstOffset() + 1, id.lastOffset() + 1).key());
          // With one-record segments the new name may be the next segment's: it is replaced then.
          Files.move(file, moved, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        default -> throw new AssertionError(damage);
      }

      Cli.Result r = Cli.run("kafka", "verify", "--store", dir.toUri().toString(), "--cluster", "c");

      if (damage == Damage.NONE) {
        assertEquals(0, r.code(), r::toString);
      } else {
        assertEquals(3, r.code(), () -> damage + ": " + r);
        assertEquals(1, r.err().lines().count(), r::toString);
      }
    } finally {
      try (Stream<Path> paths = Files.walk(dir)) {
        for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
          Files.delete(p);
        }
      }
    }
  }

  /** A chain of segments holding {@code sizes[i]} records each, with a hole after every fifth record. */
  private static List<String> writeChain(DirectoryObjectStore store, List<Integer> sizes) {
    TopicManifest manifest = new TopicManifest(1, "c", "t", ID.toString(), 1, 1, "read_committed", Map.of(),
        List.of(), Instant.EPOCH, "test");
    store.putIfAbsent(new KafkaLayout.ManifestKey("c", "t", ID, 1).key(), Content.of(TopicManifestCodec.encode(manifest)));
    List<String> keys = new ArrayList<>();
    long offset = 0;
    String previous = null;
    for (int size : sizes) {
      SegmentWriter writer = new SegmentWriter(ID, 0, offset, previous);
      for (int i = 0; i < size; i++) {
        writer.append(new BackupRecord(offset, 1000 + offset, TimestampKind.CREATE_TIME, null,
            ("v" + offset).getBytes(), List.of(new RecordHeader("h", null))));
        offset += offset % 5 == 4 ? 2 : 1;
      }
      EncodedSegment segment = writer.finish();
      String key = SegmentKey.of("c", "t", segment.header()).key();
      store.putIfAbsent(key, segment.content());
      keys.add(key);
      previous = segment.header().sha256();
      offset = segment.header().lastOffset() + 1;
    }
    return keys;
  }
}
