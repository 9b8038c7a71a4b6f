package dev.ratisoffload.kafka.read;

import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * Follows one partition's chain as a backup extends it: each {@link #poll()} returns the segments
 * written since the last one, in order, starting exactly where the previous one ended. A restore in
 * follow mode calls it in a loop; a one-shot restore calls it once.
 *
 * <p>The follower never skips: if the next segment does not start at the expected offset (a gap or an
 * overlap in the chain) it throws {@link IntegrityException} naming the offsets, and a later poll
 * throws the same until the chain is repaired.
 *
 * <p>Each poll lists only the keys after the last segment it took or passed over (segment keys sort in
 * offset order, and a backup only ever adds segments after the chain's end), so polling a chain of a
 * million segments costs what polling one of ten does.
 */
public final class ChainFollower {

  private final ObjectStore store;
  private final String cluster;
  private final String topic;
  private final Uuid topicId;
  private final int partition;
  private long nextOffset;
  private boolean started;
  private boolean exact;
  /** The key of the last segment taken or passed over; "" before the first. */
  private String listedUpTo = "";

  /**
   * @param fromOffset the offset the caller needs next; empty to start at the chain's first segment
   */
  public ChainFollower(ObjectStore store, String cluster, String topic, Uuid topicId, int partition,
      Optional<Long> fromOffset) {
    this.store = store;
    this.cluster = cluster;
    this.topic = topic;
    this.topicId = topicId;
    this.partition = partition;
    this.nextOffset = fromOffset.orElse(0L);
    this.started = fromOffset.isPresent();
  }

  /** The offset the next segment must start at (or contain, for the first poll with a start offset). */
  public long nextOffset() {
    return nextOffset;
  }

  /**
   * The segments that continue the chain from {@link #nextOffset()}; empty when the backup has not
   * written more. Without a start offset the first segment is the chain's first, wherever it starts.
   * With one, the first segment returned may start before it when the offset lies inside it: the
   * caller skips that segment's entries below the offset. Segments before a break are returned first;
   * the poll after them throws.
   */
  public List<StoredSegment> poll() {
    List<StoredSegment> all = new ArrayList<>();
    for (ObjectInfo object : store.list(KafkaLayout.partitionPrefix(cluster, topic, topicId, partition), listedUpTo)) {
      Optional<SegmentKey> key = KafkaLayout.parseSegmentKey(object.key());
      key.ifPresent(k -> all.add(new StoredSegment(k, object.size())));
    }
    all.sort(Comparator.comparingLong(StoredSegment::firstOffset).thenComparingLong(StoredSegment::lastOffset));
    List<StoredSegment> next = new ArrayList<>();
    for (StoredSegment segment : all) {
      if (started && segment.lastOffset() < nextOffset) {
        listedUpTo = segment.key();
        continue;
      }
      boolean fits = !started
          || (exact ? segment.firstOffset() == nextOffset : segment.firstOffset() <= nextOffset);
      if (!fits) {
        if (!next.isEmpty()) {
          return next;
        }
        throw new IntegrityException("the chain of " + topic + "/" + partition + " (topic id " + topicId
            + ") does not continue at offset " + nextOffset + ": the next segment is " + segment.key()
            + (segment.firstOffset() > nextOffset ? " (offsets " + nextOffset + "-" + (segment.firstOffset() - 1)
            + " are in no segment" + (exact ? ")" : ": removed by kafka gc, or never backed up)")
            : " (it overlaps the one before)") + "; run `offload kafka verify`");
      }
      next.add(segment);
      listedUpTo = segment.key();
      nextOffset = segment.lastOffset() + 1;
      started = true;
      exact = true;
    }
    return next;
  }
}
