package dev.ratisoffload.kafka.gc;

import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.format.SegmentHeader;
import dev.ratisoffload.kafka.format.SegmentWriter;
import dev.ratisoffload.kafka.format.SegmentWriter.EncodedSegment;
import dev.ratisoffload.kafka.format.TimestampKind;
import dev.ratisoffload.store.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;

/**
 * A real chain of topic "orders" in cluster "c" for the gc tests: segment s holds the ten records of
 * offsets 10s to 10s+9, written at hour s.
 */
final class HourlyChain {

  static final long HOUR = 3_600_000L;

  private HourlyChain() {}

  /** Stores segments {@code from} to {@code to - 1} of one partition, linked; returns their headers. */
  static List<SegmentHeader> write(ObjectStore store, Uuid topicId, int partition, int from, int to, long t0) {
    List<SegmentHeader> headers = new ArrayList<>();
    String previous = null;
    for (int s = from; s < to; s++) {
      SegmentWriter w = new SegmentWriter(topicId, partition, s * 10L, previous);
      for (int i = 0; i < 10; i++) {
        w.append(new BackupRecord(s * 10L + i, t0 + s * HOUR + i, TimestampKind.CREATE_TIME, null, new byte[] {1},
            List.of()));
      }
      EncodedSegment segment = w.finish();
      store.putIfAbsent(SegmentKey.of("c", "orders", segment.header()).key(), segment.content());
      previous = segment.header().sha256();
      headers.add(segment.header());
    }
    return headers;
  }
}
