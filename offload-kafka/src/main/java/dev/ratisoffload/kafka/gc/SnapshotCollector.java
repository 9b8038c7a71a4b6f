package dev.ratisoffload.kafka.gc;

import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.KafkaLayout.GroupOffsetsKey;
import dev.ratisoffload.kafka.format.SegmentHeader;
import dev.ratisoffload.kafka.read.GroupOffsetsReader;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.PartitionChain;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.kafka.read.StoredSegment;
import dev.ratisoffload.kafka.read.TopicIncarnation;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.StoreException;
import dev.ratisoffload.store.StoreUnavailableException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Removes the consumer-group offset snapshots of a topic incarnation that the kept chains no longer
 * need. A restore with {@code --until T} commits the newest snapshot taken at or before T, and T lies in
 * the window a chain keeps (from its first kept record's time on), so the collector keeps every snapshot
 * taken after the earliest window start, and the newest one at or before it; the newest snapshot of all
 * is therefore always kept. Offset maps are never removed: a renumbering restore's target keeps its
 * offsets whatever the backup keeps.
 *
 * <p>It fails closed, as {@link ChainCollector} does: a snapshot whose name or body cannot be read, a chain
 * that was left as it is, or a chain whose kept segments hold no record (its window's start is unknown)
 * keeps every snapshot of the incarnation, and the result says why.
 */
public final class SnapshotCollector {

  private final SegmentSource source;
  private final GroupOffsetsReader reader;

  public SnapshotCollector(SegmentSource source) {
    this.source = source;
    this.reader = new GroupOffsetsReader(source.store());
  }

  /**
   * The snapshots of every incarnation of the catalog that has any, after its chains were collected with
   * the given results (a chain without a result keeps all its segments).
   */
  public List<SnapshotResult> collect(KafkaBackupCatalog catalog, List<ChainResult> chains, boolean apply) {
    List<SnapshotResult> results = new ArrayList<>();
    for (TopicIncarnation incarnation : catalog.incarnations()) {
      collect(incarnation, chains, catalog.strayKeys(), apply).ifPresent(results::add);
    }
    return results;
  }

  /** One incarnation; empty when it has no snapshot. */
  public Optional<SnapshotResult> collect(TopicIncarnation incarnation, List<ChainResult> chains,
      List<String> strayKeys, boolean apply) {
    List<GroupOffsetsKey> snapshots = reader.snapshots(incarnation.cluster(), incarnation.topic(), incarnation.topicId());
    String prefix = KafkaLayout.groupOffsetsPrefix(incarnation.cluster(), incarnation.topic(), incarnation.topicId());
    Optional<String> unreadableName = strayKeys.stream().filter(k -> k.startsWith(prefix)).findFirst();
    if (snapshots.isEmpty() && unreadableName.isEmpty()) {
      return Optional.empty();
    }
    List<GroupOffsetsKey> removed;
    try {
      if (unreadableName.isPresent()) {
        throw new IntegrityException("unreadable snapshot name " + unreadableName.get());
      }
      removed = plan(incarnation, chains, snapshots);
    } catch (IntegrityException e) {
      return Optional.of(new SnapshotResult(incarnation.topic(), incarnation.topicId().toString(), false, List.of(),
          snapshots.size(), e.getMessage() + "; every snapshot of the topic is kept"));
    }
    int deleted = 0;
    if (apply) {
      try {
        for (GroupOffsetsKey key : removed) {
          source.store().delete(key.key());
          deleted++;
        }
      } catch (StoreException e) {
        throw new KafkaOffloadException(e instanceof StoreUnavailableException ? Kind.UNAVAILABLE : Kind.INCONSISTENT,
            "removed " + deleted + " of the " + removed.size() + " old group offset snapshots of "
                + incarnation.describe() + ", then the store failed (" + e.getMessage() + "). The oldest are removed"
                + " first, so every snapshot a restore needs is kept; run kafka gc --apply again to finish", e);
      }
    }
    return Optional.of(new SnapshotResult(incarnation.topic(), incarnation.topicId().toString(),
        apply && !removed.isEmpty(), removed.stream().map(k -> Instant.ofEpochMilli(k.takenAtMillis())).toList(),
        snapshots.size() - removed.size(), null));
  }

  /** The snapshots to remove, oldest first; every snapshot is read first, so an unreadable one keeps all. */
  private List<GroupOffsetsKey> plan(TopicIncarnation incarnation, List<ChainResult> chains,
      List<GroupOffsetsKey> snapshots) {
    snapshots.forEach(reader::read);
    Optional<Long> windowStart = Optional.empty();
    for (PartitionChain chain : incarnation.partitions().values()) {
      long start = windowStart(chain, keptFirst(chain, chains));
      windowStart = Optional.of(windowStart.map(w -> Math.min(w, start)).orElse(start));
    }
    if (windowStart.isEmpty()) {
      return List.of(); // no chain: nothing says which snapshots a restore can use
    }
    int newestAtOrBefore = -1;
    for (int i = 0; i < snapshots.size(); i++) {
      if (snapshots.get(i).takenAtMillis() <= windowStart.get()) {
        newestAtOrBefore = i;
      }
    }
    return newestAtOrBefore <= 0 ? List.of() : List.copyOf(snapshots.subList(0, newestAtOrBefore));
  }

  /** The first offset a chain keeps after this collection. */
  private static long keptFirst(PartitionChain chain, List<ChainResult> chains) {
    for (ChainResult r : chains) {
      if (r.topicId().equals(chain.topicId().toString()) && r.partition() == chain.partition()) {
        if (r.refused() != null) {
          throw new IntegrityException("the chain of " + r.describe() + " was left as it is (" + r.refused() + ")");
        }
        return r.keptFirst();
      }
    }
    return chain.first().orElseThrow().firstOffset();
  }

  /** The time of the first record the chain keeps: its first kept segment with a record's earliest time. */
  private long windowStart(PartitionChain chain, long keptFirst) {
    for (StoredSegment segment : chain.segments()) {
      if (segment.firstOffset() >= keptFirst) {
        SegmentHeader header = source.readHeader(segment);
        if (header.recordCount() > 0) {
          return header.minTimestamp();
        }
      }
    }
    throw new IntegrityException("no kept segment of " + chain.describe() + " holds a record, so the time its"
        + " window starts is unknown");
  }
}
