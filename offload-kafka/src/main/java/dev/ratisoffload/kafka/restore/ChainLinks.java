package dev.ratisoffload.kafka.restore;

import dev.ratisoffload.kafka.format.SegmentHeader;
import dev.ratisoffload.kafka.read.ChainBreak;
import dev.ratisoffload.kafka.read.StoredSegment;
import dev.ratisoffload.store.IntegrityException;
import java.util.Objects;

/**
 * Checks, segment by segment, that what a restore reads is one chain: each segment starts right after
 * the one before and names its SHA-256. The first segment read is taken as it is (a follower may
 * resume in the middle of a chain).
 */
final class ChainLinks {

  private StoredSegment previous;
  private String previousSha;

  /** Accepts the next segment, or throws naming the break. */
  void accept(StoredSegment segment, SegmentHeader header) {
    if (previous != null) {
      ChainBreak.between(previous, segment).ifPresent(b -> {
        throw new IntegrityException(b.describe()
            + "; nothing after offset " + previous.lastOffset() + " can be restored in order");
      });
      if (!Objects.equals(previousSha, header.previousSha256())) {
        throw new IntegrityException("segment " + segment.key() + " does not follow " + previous.key()
            + ": it names a predecessor with SHA-256 " + header.previousSha256() + ", the one before it has "
            + previousSha + " (a segment was replaced or moved); run `offload kafka verify`");
      }
    }
    previous = segment;
    previousSha = header.sha256();
  }
}
