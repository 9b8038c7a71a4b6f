package dev.ratisoffload.kafka.restore;

import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.Hole;
import dev.ratisoffload.kafka.format.RecordOutline;
import dev.ratisoffload.kafka.format.SegmentEntry;
import dev.ratisoffload.kafka.format.SegmentHeader;
import dev.ratisoffload.kafka.format.SegmentReader;
import dev.ratisoffload.kafka.read.ChainVerifier;
import dev.ratisoffload.kafka.read.OffsetRange;
import dev.ratisoffload.kafka.read.PartitionChain;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.kafka.read.StoredSegment;
import dev.ratisoffload.store.IntegrityException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a one-shot restore will send of one partition, found by the verify pass: every segment read to
 * its end and its SHA-256 checked, the chain's joins and links checked, and the figures the target
 * must be able to take.
 *
 * @param segments the verified segments holding the records to send, in order, with their headers
 * @param chainStart the chain's first offset (0 unless retention removed records before the backup began)
 * @param endOffset one past the last record to send (the chain's end, or where {@code until} cut it)
 * @param records how many records will be sent
 * @param holes the offsets below {@code endOffset} without a record, merged into ranges (the first
 *     {@value ChainVerifier#MAX_LISTED_HOLES})
 * @param holeOffsets how many offsets below {@code endOffset} have no record
 * @param minTimestamp the oldest timestamp among the records (Long.MAX_VALUE when there are none)
 * @param maxRecordBytes the largest record, as a batch of its own (uncompressed, an upper bound)
 * @param maxRecordOffset the offset of that record (-1 when there are no records)
 * @param storedBytes what the backup stores of the segments to send (compressed)
 */
record PartitionPlan(int partition, List<VerifiedSegment> segments, long chainStart, long endOffset, long records,
    List<OffsetRange> holes, long holeOffsets, long minTimestamp, int maxRecordBytes, long maxRecordOffset,
    long storedBytes) {

  /**
   * A segment the verify pass read, with the header it had then.
   *
   * @param body the decoded body as verified, kept for the send pass; null when it did not fit the
   *     budget, and the send pass reads the store again
   */
  record VerifiedSegment(StoredSegment segment, SegmentHeader header, byte[] body) {

    /**
     * Opens the segment for the send pass: its kept body (nothing to hash or decompress again), or the
     * object read from the store again and checked to be the one verified.
     */
    SegmentReader reopen(SegmentSource source) {
      if (body != null) {
        return SegmentReader.ofVerifiedBody(header, body, segment.key());
      }
      SegmentReader reader = source.open(segment);
      if (!reader.header().sha256().equals(header.sha256())) {
        reader.close();
        throw new IntegrityException("segment " + segment.key() + " changed after the verify pass read it (SHA-256 "
            + header.sha256() + ", now " + reader.header().sha256() + "): something rewrote the backup");
      }
      return reader;
    }
  }

  /**
   * Reads and verifies the chain, up to the first record later than {@code until} when present, keeping
   * the decoded bodies of the segments to send that fit {@code keep}.
   */
  static PartitionPlan scan(SegmentSource source, PartitionChain chain, Optional<Instant> until, KeptSegments keep) {
    ChainLinks links = new ChainLinks();
    List<VerifiedSegment> segments = new ArrayList<>();
    List<OffsetRange> holes = new ArrayList<>();
    long chainStart = chain.first().map(StoredSegment::firstOffset).orElse(0L);
    long end = chainStart;
    long records = 0;
    long holeOffsets = 0;
    long pendingHoleOffsets = 0; // holes after the last record so far: restored only if a record follows
    long minTimestamp = Long.MAX_VALUE;
    int maxBytes = 0;
    long maxOffset = -1;
    boolean cut = false;
    for (StoredSegment segment : chain.segments()) {
      if (cut) {
        break;
      }
      try (SegmentReader reader = source.open(segment)) {
        links.accept(segment, reader.header());
        if (keep.tryKeep(reader.header().decodedBodyLength())) {
          reader.keepBody();
        }
        // Read to the end even past the cut: the segment's hash covers all of it.
        // Outlines: the verify pass needs where records are and their sizes, not copies of their bytes.
        for (SegmentEntry entry = reader.nextOutline(); entry != null; entry = reader.nextOutline()) {
          if (cut) {
            continue;
          }
          if (entry instanceof Hole hole) {
            pendingHoleOffsets += hole.count();
            addHole(holes, hole);
          } else if (entry instanceof RecordOutline record) {
            if (until.isPresent() && record.timestamp() > until.get().toEpochMilli()) {
              cut = true;
              continue;
            }
            records++;
            holeOffsets += pendingHoleOffsets;
            pendingHoleOffsets = 0;
            end = record.offset() + 1;
            minTimestamp = Math.min(minTimestamp, record.timestamp());
            int bytes = RecordSizes.upperBound(record);
            if (bytes > maxBytes) {
              maxBytes = bytes;
              maxOffset = record.offset();
            }
          }
        }
        segments.add(new VerifiedSegment(segment, reader.header(), reader.keptBody()));
      }
    }
    long restoredEnd = end;
    List<OffsetRange> inside = holes.stream().filter(h -> h.first() < restoredEnd)
        .map(h -> new OffsetRange(h.first(), Math.min(h.last(), restoredEnd - 1))).toList();
    List<VerifiedSegment> needed = new ArrayList<>();
    for (VerifiedSegment verified : segments) {
      if (verified.segment().firstOffset() < restoredEnd) {
        needed.add(verified);
      } else if (verified.body() != null) {
        keep.release(verified.body().length); // past the cut: not sent, its room is the other partitions'
      }
    }
    return new PartitionPlan(chain.partition(), needed, chainStart, restoredEnd, records, inside, holeOffsets,
        minTimestamp, maxBytes, maxOffset, needed.stream().mapToLong(v -> v.segment().size()).sum());
  }

  /**
   * Follow mode: the figures of records about to be sent, for the same checks of the target (the
   * retention.bytes check is made on the whole rest of the chain instead).
   */
  static PartitionPlan ofRecords(int partition, List<BackupRecord> records) {
    long minTimestamp = Long.MAX_VALUE;
    int maxBytes = 0;
    long maxOffset = -1;
    for (BackupRecord record : records) {
      minTimestamp = Math.min(minTimestamp, record.timestamp());
      int bytes = RecordSizes.upperBound(RecordOutline.of(record));
      if (bytes > maxBytes) {
        maxBytes = bytes;
        maxOffset = record.offset();
      }
    }
    long end = records.isEmpty() ? 0 : records.get(records.size() - 1).offset() + 1;
    return new PartitionPlan(partition, List.of(), 0, end, records.size(), List.of(), 0, minTimestamp, maxBytes,
        maxOffset, 0);
  }

  /** The record at an offset of the plan, read from its verified segments; null when there is none. */
  BackupRecord recordAt(SegmentSource source, long offset) {
    for (VerifiedSegment verified : segments) {
      if (verified.segment().firstOffset() <= offset && offset <= verified.segment().lastOffset()) {
        try (SegmentReader reader = verified.reopen(source)) {
          for (SegmentEntry entry = reader.next(); entry != null; entry = reader.next()) {
            if (entry instanceof BackupRecord r && r.offset() == offset) {
              return r;
            }
          }
        }
      }
    }
    return null;
  }

  /** The offsets preserve mode cannot reproduce: before the chain's start, and every hole. */
  List<OffsetRange> missingForPreserve() {
    List<OffsetRange> missing = new ArrayList<>();
    if (records > 0 && chainStart > 0) {
      missing.add(new OffsetRange(0, chainStart - 1));
    }
    missing.addAll(holes);
    return missing;
  }

  private static void addHole(List<OffsetRange> holes, Hole hole) {
    if (!holes.isEmpty() && holes.get(holes.size() - 1).last() + 1 == hole.offset()) {
      OffsetRange open = holes.remove(holes.size() - 1);
      holes.add(new OffsetRange(open.first(), hole.lastOffset()));
    } else if (holes.size() < ChainVerifier.MAX_LISTED_HOLES) {
      holes.add(new OffsetRange(hole.offset(), hole.lastOffset()));
    }
  }
}
