package dev.ratisoffload.kafka.read;

import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * Finds the last two segments of one partition's chain without listing the chain. Segment keys sort in
 * offset order, so "is there a segment starting at or after offset X" is one listing of one key after
 * X's name; galloping then bisecting over first offsets finds the last start in a number of such
 * probes logarithmic in the chain's offset span, however many segments it has (a year of segments is
 * about 40 probes, not a million keys).
 */
public final class ChainEnd {

  /** The chain's last segment, and the one before it in chain order (empty when the chain has one). */
  public record Tail(StoredSegment last, Optional<StoredSegment> previous) {}

  private final ObjectStore store;

  public ChainEnd(ObjectStore store) {
    this.store = store;
  }

  /** The end of the chain of one partition of a topic incarnation; empty when it has no segment. */
  public Optional<Tail> find(String cluster, String topic, Uuid topicId, int partition) {
    String prefix = KafkaLayout.partitionPrefix(cluster, topic, topicId, partition);
    Optional<Long> first = firstStartAtOrAfter(prefix, 0);
    if (first.isEmpty()) {
      return Optional.empty();
    }
    List<StoredSegment> lastStarting = startingAt(cluster, topic, topicId, partition,
        lastStartBelow(prefix, first.get(), Long.MAX_VALUE));
    if (lastStarting.isEmpty()) {
      throw new IntegrityException("the last segment of " + prefix + " was listed but is gone (deleted meanwhile?);"
          + " nothing was written: run again");
    }
    StoredSegment last = lastStarting.get(lastStarting.size() - 1);
    if (lastStarting.size() > 1) { // two segments start at the same offset (two writers): the other is before
      return Optional.of(new Tail(last, Optional.of(lastStarting.get(lastStarting.size() - 2))));
    }
    if (last.firstOffset() == first.get()) {
      return Optional.of(new Tail(last, Optional.empty()));
    }
    List<StoredSegment> previousStarting = startingAt(cluster, topic, topicId, partition,
        lastStartBelow(prefix, first.get(), last.firstOffset()));
    return Optional.of(new Tail(last, previousStarting.isEmpty() ? Optional.empty() // trimmed by gc meanwhile
        : Optional.of(previousStarting.get(previousStarting.size() - 1))));
  }

  /**
   * The largest first offset below {@code limit}, given that a segment starts at {@code known} (below it):
   * gallops up from {@code known} while segments start further on, then bisects the last step.
   */
  private long lastStartBelow(String prefix, long known, long limit) {
    long lo = known; // a segment starts here
    long hi = limit; // none starts in [hi, limit)
    long step = 1;
    while (hi - lo > 1) {
      long probe = step >= hi - lo ? hi - 1 : lo + step;
      Optional<Long> found = firstStartAtOrAfter(prefix, probe).filter(start -> start < limit);
      if (found.isEmpty()) {
        hi = probe;
        break;
      }
      lo = found.get();
      step = step > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : step * 2;
    }
    while (hi - lo > 1) {
      long mid = lo + (hi - lo) / 2;
      long below = hi;
      Optional<Long> found = firstStartAtOrAfter(prefix, mid).filter(start -> start < below);
      if (found.isPresent()) {
        lo = found.get();
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** The smallest first offset at or after {@code offset}: one listing of one key (more only past stray keys). */
  private Optional<Long> firstStartAtOrAfter(String prefix, long offset) {
    // "<offset - 1>." sorts after every key of segments starting at offset - 1 ('.' follows '-') and
    // before those starting at offset.
    String after = offset == 0 ? "" : prefix + String.format("%019d.", offset - 1);
    while (true) {
      List<ObjectInfo> next = store.list(prefix, after, 1);
      if (next.isEmpty()) {
        return Optional.empty();
      }
      String key = next.get(0).key();
      Optional<SegmentKey> segment = KafkaLayout.parseSegmentKey(key);
      if (segment.isPresent()) {
        return Optional.of(segment.get().firstOffset());
      }
      if (key.charAt(prefix.length()) > '9') {
        return Optional.empty(); // chain-start markers and other names after every segment's
      }
      after = key; // a stray name among the segments': passed over, as listings of the whole chain do
    }
  }

  /** Every segment starting at one offset (one, unless two writers raced), by last offset. */
  private List<StoredSegment> startingAt(String cluster, String topic, Uuid topicId, int partition, long start) {
    return store.list(KafkaLayout.segmentsStartingAt(cluster, topic, topicId, partition, start)).stream()
        .flatMap(o -> KafkaLayout.parseSegmentKey(o.key()).map(k -> new StoredSegment(k, o.size())).stream())
        .sorted(Comparator.comparingLong(StoredSegment::lastOffset))
        .toList();
  }
}
