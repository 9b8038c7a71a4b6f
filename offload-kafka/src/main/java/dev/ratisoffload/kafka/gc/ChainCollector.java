package dev.ratisoffload.kafka.gc;

import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import dev.ratisoffload.kafka.format.ChainStartMarker;
import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.KafkaLayout.ChainStartKey;
import dev.ratisoffload.kafka.format.SegmentHeader;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.PartitionChain;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.kafka.read.StoredSegment;
import dev.ratisoffload.kafka.read.TopicIncarnation;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectConflictException;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreException;
import dev.ratisoffload.store.StoreUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Removes whole segments from the start of partition chains by a {@link ChainRetention}, failing closed
 * as the Ratis collector does: a chain with a gap or an overlap, an unexpected object beside its
 * segments, a header or marker that cannot be read, or a first kept segment that does not name the last
 * removed one as its predecessor has nothing removed, and the result says why.
 *
 * <p>Order of writes: the chain-start marker (put-if-absent) first, naming the first kept segment and
 * its SHA-256, then the segments oldest first, then older markers. A collection that stops anywhere
 * leaves a chain that verifies (the verifier accepts a first segment at or before the newest marker),
 * and the next run finishes what the marker announced.
 */
public final class ChainCollector {

  private final SegmentSource source;
  private final ChainRetention retention;

  public ChainCollector(SegmentSource source, ChainRetention retention) {
    this.source = source;
    this.retention = retention;
  }

  SegmentSource source() {
    return source;
  }

  ObjectStore store() {
    return source.store();
  }

  /** Every chain of a catalog, one result per chain. */
  public List<ChainResult> collect(KafkaBackupCatalog catalog, boolean apply) {
    List<ChainResult> results = new ArrayList<>();
    for (TopicIncarnation incarnation : catalog.incarnations()) {
      for (PartitionChain chain : incarnation.partitions().values()) {
        results.add(collect(chain, catalog.strayKeys(), apply));
      }
    }
    return results;
  }

  /** One partition's chain; {@code strayKeys} are the unexpected keys of the listing it came from. */
  public ChainResult collect(PartitionChain chain, List<String> strayKeys, boolean apply) {
    Plan plan;
    try {
      plan = plan(chain, strayKeys);
    } catch (IntegrityException e) {
      return refused(chain, e.getMessage());
    }
    if (plan.removed.isEmpty()) {
      return result(chain, plan, false);
    }
    if (!apply) {
      return result(chain, plan, false);
    }
    try {
      source.store().putIfAbsent(plan.markerKey.key(), Content.of(plan.marker.encode()));
    } catch (ObjectConflictException e) {
      return refused(chain, "a different chain-start marker is already stored at " + plan.markerKey.key());
    }
    int deleted = 0;
    try {
      for (StoredSegment segment : plan.removed) {
        source.store().delete(segment.key());
        deleted++;
      }
      for (ChainStartKey older : chain.starts()) {
        if (older.firstOffset() < plan.markerKey.firstOffset()) {
          source.store().delete(older.key());
        }
      }
    } catch (StoreException e) {
      throw new KafkaOffloadException(e instanceof StoreUnavailableException ? Kind.UNAVAILABLE : Kind.INCONSISTENT,
          "removed " + deleted + " of the " + plan.removed.size() + " segments of " + chain.describe()
              + " before offset " + plan.marker.firstOffset() + ", then the store failed (" + e.getMessage()
              + "). The chain-start marker is stored, so the chain verifies as it is; run kafka gc --apply again"
              + " to finish", e);
    }
    return result(chain, plan, true);
  }

  /** The segments to remove and the marker to write before removing them. */
  private record Plan(List<StoredSegment> removed, ChainStartKey markerKey, ChainStartMarker marker) {}

  private Plan plan(PartitionChain chain, List<String> strayKeys) {
    String prefix = KafkaLayout.partitionPrefix(chain.cluster(), chain.topic(), chain.topicId(), chain.partition());
    for (String stray : strayKeys) {
      if (stray.startsWith(prefix)) {
        throw new IntegrityException("unexpected object " + stray + " beside the chain's segments");
      }
    }
    if (!chain.breaks().isEmpty()) {
      throw new IntegrityException(chain.breaks().get(0).describe() + "; run offload kafka verify");
    }
    List<StoredSegment> segments = chain.segments();
    if (segments.size() < 2) {
      return new Plan(List.of(), null, null);
    }
    int cut = unfinishedCut(chain);
    cut = Math.max(cut, bytesCut(segments));
    cut = Math.max(cut, timeCut(segments, cut));
    cut = Math.min(cut, segments.size() - 1); // never the newest segment
    if (cut <= 0) {
      return new Plan(List.of(), null, null);
    }
    StoredSegment firstKept = segments.get(cut);
    StoredSegment lastRemoved = segments.get(cut - 1);
    SegmentHeader kept = source.readHeader(firstKept);
    SegmentHeader removed = source.readHeader(lastRemoved);
    if (!Objects.equals(kept.previousSha256(), removed.sha256())) {
      throw new IntegrityException("segment " + firstKept.key() + " names a predecessor with SHA-256 "
          + kept.previousSha256() + ", but the segment before it has " + removed.sha256()
          + " (a segment was replaced or moved); run offload kafka verify");
    }
    ChainStartKey key = new ChainStartKey(chain.cluster(), chain.topic(), chain.topicId(), chain.partition(),
        firstKept.firstOffset());
    return new Plan(List.copyOf(segments.subList(0, cut)), key, new ChainStartMarker(firstKept.firstOffset(),
        kept.sha256()));
  }

  /** Where an earlier collection that stopped before its deletes ended said the chain starts. */
  private int unfinishedCut(PartitionChain chain) {
    Optional<ChainStartKey> start = chain.trimmedStart();
    if (start.isEmpty()) {
      return 0;
    }
    ChainStartMarker marker = source.readChainStart(start.get());
    List<StoredSegment> segments = chain.segments();
    for (int i = 0; i < segments.size(); i++) {
      if (segments.get(i).firstOffset() == marker.firstOffset()) {
        return i;
      }
    }
    throw new IntegrityException("the chain-start marker " + start.get().key() + " names offset "
        + marker.firstOffset() + ", but no segment starts there; run offload kafka verify");
  }

  /** How many of the oldest segments fall outside the newest ones that fit the byte bound. */
  private int bytesCut(List<StoredSegment> segments) {
    if (retention.keepBytes().isEmpty()) {
      return 0;
    }
    long limit = retention.keepBytes().getAsLong();
    int i = segments.size() - 1;
    long kept = segments.get(i).size();
    while (i > 0 && kept + segments.get(i - 1).size() <= limit) {
      i--;
      kept += segments.get(i).size();
    }
    return i;
  }

  /**
   * How many of the oldest segments hold only records older than the keep-within window before the
   * chain's newest record; headers are read from {@code from} on, until the first segment inside it.
   */
  private int timeCut(List<StoredSegment> segments, int from) {
    if (retention.keepWithin().isEmpty()) {
      return 0;
    }
    long newest = -1;
    for (int i = segments.size() - 1; i >= 0 && newest < 0; i--) {
      SegmentHeader header = source.readHeader(segments.get(i));
      newest = header.recordCount() > 0 ? header.maxTimestamp() : -1;
    }
    if (newest < 0) {
      return 0; // no record has a time: nothing is known to be old
    }
    long cutoff = newest - retention.keepWithin().get().toMillis();
    int i = from;
    while (i < segments.size() - 1 && source.readHeader(segments.get(i)).maxTimestamp() < cutoff) {
      i++;
    }
    return i;
  }

  private static ChainResult result(PartitionChain chain, Plan plan, boolean applied) {
    StoredSegment last = chain.last().orElseThrow();
    if (plan.removed.isEmpty()) {
      return new ChainResult(chain.topic(), chain.topicId().toString(), chain.partition(), false, 0, null, null, 0,
          chain.first().orElseThrow().firstOffset(), last.lastOffset(), null);
    }
    long bytes = plan.removed.stream().mapToLong(StoredSegment::size).sum();
    return new ChainResult(chain.topic(), chain.topicId().toString(), chain.partition(), applied,
        plan.removed.size(), plan.removed.get(0).firstOffset(), plan.removed.get(plan.removed.size() - 1).lastOffset(),
        bytes, plan.marker.firstOffset(), last.lastOffset(), null);
  }

  private static ChainResult refused(PartitionChain chain, String why) {
    return new ChainResult(chain.topic(), chain.topicId().toString(), chain.partition(), false, 0, null, null, 0,
        chain.first().map(StoredSegment::firstOffset).orElse(0L),
        chain.last().map(StoredSegment::lastOffset).orElse(-1L), why);
  }
}
