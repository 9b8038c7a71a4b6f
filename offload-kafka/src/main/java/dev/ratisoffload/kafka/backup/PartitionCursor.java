package dev.ratisoffload.kafka.backup;

import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.SegmentWriter;
import dev.ratisoffload.kafka.format.SegmentWriter.EncodedSegment;
import dev.ratisoffload.kafka.format.SegmentWriters;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;

/**
 * Where one partition's backup stands: the offset its stored chain continues at and the SHA-256 of
 * its last stored segment; segments sealed but not yet stored (the first of them possibly handed to
 * the store threads already); and the segment being filled (opened only when the partition moves, so
 * idle partitions hold no buffer). A segment is sealed as soon as a record takes it to the size
 * limit, so no segment grows past it by more than one record.
 */
final class PartitionCursor {

  private final SegmentWriters writers;
  private final Uuid topicId;
  private final int partition;
  private final long segmentBytes;
  private long storedNext;
  private String lastSealedSha256;
  private long sealedNext;
  private final List<EncodedSegment> sealed = new ArrayList<>();
  /** How many of {@link #sealed} were handed to the store threads. */
  private int submitted;
  private SegmentWriter open;
  private long openedAtNanos;
  /** Totals of this run, for progress and the summary. */
  long recordsRead;
  long bytesRead;
  long recordsWritten;
  long holeOffsetsWritten;
  long bytesStored;
  int segmentsWritten;
  boolean done;

  PartitionCursor(SegmentWriters writers, Uuid topicId, int partition, long nextOffset, String previousSha256,
      long segmentBytes) {
    this.writers = writers;
    this.topicId = topicId;
    this.partition = partition;
    this.storedNext = nextOffset;
    this.sealedNext = nextOffset;
    this.lastSealedSha256 = previousSha256;
    this.segmentBytes = segmentBytes;
  }

  int partition() {
    return partition;
  }

  /** The next offset not yet covered by a stored, sealed or open segment. */
  long coveredUpTo() {
    return open == null ? sealedNext : open.nextOffset();
  }

  /** The offset the chain in the store continues at. */
  long storedUpTo() {
    return storedNext;
  }

  void append(BackupRecord record, long recordBytes, long nowNanos) {
    SegmentWriter writer = writer(nowNanos);
    writer.append(record);
    recordsRead++;
    bytesRead += recordBytes;
    if (writer.decodedBytes() >= segmentBytes) {
      seal();
    }
  }

  /** The consumer's position moved to {@code position}: offsets skipped below it are a hole. */
  void advanceTo(long position, long nowNanos) {
    if (position > coveredUpTo()) {
      writer(nowNanos).advanceTo(position);
    }
  }

  boolean hasOpenSegment() {
    return open != null && !open.isEmpty();
  }

  boolean hasUnstored() {
    return hasOpenSegment() || !sealed.isEmpty();
  }

  /** Memory held by the open segment: its compressed bytes and its buffers (and compressor, if its own). */
  long openMemory() {
    return open == null ? 0 : open.memory();
  }

  /** Memory held by the sealed segments not yet stored. */
  long sealedMemory() {
    return sealed.stream().mapToLong(s -> s.header().objectSize()).sum();
  }

  boolean openIsDue(long nowNanos, long maxAgeNanos) {
    return hasOpenSegment() && (done || nowNanos - openedAtNanos >= maxAgeNanos);
  }

  /** Ends the open segment (if it covers anything) so it is stored with the next batch. */
  void seal() {
    if (hasOpenSegment()) {
      EncodedSegment segment = open.finish();
      open = null;
      sealed.add(segment);
      sealedNext = segment.header().lastOffset() + 1;
      lastSealedSha256 = segment.header().sha256();
    }
  }

  /** Sealed segments in chain order, not yet handed to the store threads; they count as handed now. */
  List<EncodedSegment> takeUnsubmitted() {
    List<EncodedSegment> fresh = List.copyOf(sealed.subList(submitted, sealed.size()));
    submitted = sealed.size();
    return fresh;
  }

  boolean hasUnsubmitted() {
    return submitted < sealed.size();
  }

  /** The first sealed segment was stored: the chain in the store now continues after it. */
  void stored(EncodedSegment segment) {
    if (submitted == 0 || sealed.get(0) != segment) {
      throw new IllegalStateException("segments are stored in chain order");
    }
    sealed.remove(0);
    submitted--;
    storedNext = segment.header().lastOffset() + 1;
    recordsWritten += segment.header().recordCount();
    holeOffsetsWritten += segment.header().holeOffsets();
    bytesStored += segment.header().objectSize();
    segmentsWritten++;
  }

  void discard() {
    if (open != null) {
      open.discard();
      open = null;
    }
    sealed.clear();
    submitted = 0;
  }

  private SegmentWriter writer(long nowNanos) {
    if (open == null) {
      open = writers.open(topicId, partition, sealedNext, lastSealedSha256);
      openedAtNanos = nowNanos;
    }
    return open;
  }
}
