package dev.ratisoffload.kafka.read;

import java.util.Optional;

/**
 * Where consecutive segment names do not join: a gap (offsets no segment covers: lost data, unlike a
 * hole inside a segment) or an overlap (offsets two segments cover: two writers, or a bug).
 */
public record ChainBreak(Kind kind, StoredSegment before, StoredSegment after) {

  public enum Kind { GAP, OVERLAP }

  /** The break between two consecutive segments of a chain, from their names alone; empty if they join. */
  public static Optional<ChainBreak> between(StoredSegment before, StoredSegment after) {
    if (after.firstOffset() == before.lastOffset() + 1) {
      return Optional.empty();
    }
    Kind kind = after.firstOffset() > before.lastOffset() + 1 ? Kind.GAP : Kind.OVERLAP;
    return Optional.of(new ChainBreak(kind, before, after));
  }

  public String describe() {
    if (kind == Kind.GAP) {
      return "offsets " + (before.lastOffset() + 1) + "-" + (after.firstOffset() - 1) + " of partition "
          + before.id().partition() + " are in no segment: " + before.key() + " ends at " + before.lastOffset()
          + ", the next segment starts at " + after.firstOffset();
    }
    return "segments " + before.key() + " and " + after.key() + " overlap (both cover offset "
        + after.firstOffset() + "): two backups wrote this partition at once";
  }
}
