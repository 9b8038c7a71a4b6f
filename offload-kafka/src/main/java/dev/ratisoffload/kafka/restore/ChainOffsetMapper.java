package dev.ratisoffload.kafka.restore;

import dev.ratisoffload.kafka.format.OffsetMap;
import dev.ratisoffload.kafka.format.RecordOutline;
import dev.ratisoffload.kafka.format.SegmentEntry;
import dev.ratisoffload.kafka.format.SegmentHeader;
import dev.ratisoffload.kafka.format.SegmentReader;
import dev.ratisoffload.kafka.read.PartitionChain;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.kafka.read.StoredSegment;

/**
 * The offset map of a renumbering follower, rebuilt from the chain when it is drained (a follower keeps
 * no state): the n-th record of the chain went to target offset n. A segment without holes maps from its
 * header alone; only segments with holes are read, and verified as they are.
 */
final class ChainOffsetMapper {

  private ChainOffsetMapper() {}

  /** The map of the first {@code restored} records of the chain. */
  static OffsetMap.PartitionMap map(SegmentSource source, PartitionChain chain, long restored) {
    OffsetMap.Builder map = new OffsetMap.Builder(0);
    long next = 0;
    long sourceEnd = chain.first().map(StoredSegment::firstOffset).orElse(0L);
    for (StoredSegment segment : chain.segments()) {
      if (next >= restored) {
        break;
      }
      SegmentHeader header = source.readHeader(segment);
      long span = header.lastOffset() - header.firstOffset() + 1;
      if (header.recordCount() == span && next + span <= restored) {
        map.add(header.firstOffset(), next, span);
        next += span;
        sourceEnd = header.lastOffset() + 1;
        continue;
      }
      try (SegmentReader reader = source.open(segment)) {
        for (SegmentEntry entry = reader.nextOutline(); entry != null && next < restored;
            entry = reader.nextOutline()) {
          if (entry instanceof RecordOutline record) {
            map.add(record.offset(), next++);
            sourceEnd = record.offset() + 1;
          }
        }
      }
    }
    return map.build(sourceEnd);
  }
}
