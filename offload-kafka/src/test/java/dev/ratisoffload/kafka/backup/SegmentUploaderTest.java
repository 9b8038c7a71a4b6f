package dev.ratisoffload.kafka.backup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.format.SegmentWriter;
import dev.ratisoffload.kafka.format.SegmentWriter.EncodedSegment;
import dev.ratisoffload.kafka.format.TimestampKind;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.InMemoryObjectStore;
import dev.ratisoffload.store.ObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A second backup writing the same partition is detected when their segments start at the same offset. */
class SegmentUploaderTest {

  private static final Uuid TOPIC_ID = Uuid.randomUuid();

  private static EncodedSegment segment(long first, int records) {
    SegmentWriter writer = new SegmentWriter(TOPIC_ID, 0, first, null);
    for (int i = 0; i < records; i++) {
      writer.append(new BackupRecord(first + i, 1000 + i, TimestampKind.CREATE_TIME, null, new byte[] {(byte) i},
          List.of()));
    }
    return writer.finish();
  }

  private static SegmentKey key(EncodedSegment s) {
    return SegmentKey.of("c", "t", s.header());
  }

  @Test
  void aSecondWriterWithADifferentCutIsRefused(@TempDir Path dir) {
    for (ObjectStore store : List.of(new InMemoryObjectStore(), new DirectoryObjectStore(dir))) {
      SegmentUploader uploader = new SegmentUploader(store, Duration.ofSeconds(1));
      EncodedSegment mine = segment(100, 5);
      EncodedSegment theirs = segment(100, 3);
      uploader.upload(key(theirs), theirs);

      KafkaOffloadException e = assertThrows(KafkaOffloadException.class, () -> uploader.upload(key(mine), mine));

      assertEquals(KafkaOffloadException.Kind.REFUSED, e.kind());
      assertTrue(e.getMessage().contains("another backup is writing t/0"), e.getMessage());
    }
  }

  @Test
  void storingTheSameSegmentTwiceIsARetryNotAConflict() {
    InMemoryObjectStore store = new InMemoryObjectStore();
    SegmentUploader uploader = new SegmentUploader(store, Duration.ofSeconds(1));
    EncodedSegment s = segment(0, 4);
    uploader.upload(key(s), s);
    uploader.upload(key(s), s);
    assertEquals(1, store.list("").size());
  }
}
