package dev.ratisoffload.kafka.backup;

import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import dev.ratisoffload.kafka.format.SegmentHeader;
import dev.ratisoffload.kafka.read.ChainBreak;
import dev.ratisoffload.kafka.read.ChainEnd;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.kafka.read.StoredSegment;
import dev.ratisoffload.store.IntegrityException;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a partition's stored chain continues: found by {@link ChainEnd}'s probes (never a listing of
 * the whole chain), then proven. The last segment is read whole and verified, since the next segment
 * links to its hash; how it joins the segment before it (names and hash link) is checked, and a break
 * there is logged for {@code offload kafka verify} to report, as it does not stop the chain continuing.
 */
final class ResumePoint {

  private static final Logger LOG = LoggerFactory.getLogger(ResumePoint.class);

  /** The offset the chain continues at and the SHA-256 of its last segment, for the next one's link. */
  record ChainTail(long nextOffset, String lastSha256) {}

  private final SegmentSource source;
  private final ChainEnd chainEnd;

  ResumePoint(SegmentSource source) {
    this.source = source;
    this.chainEnd = new ChainEnd(source.store());
  }

  /** Where the chain of one partition continues; empty when it has no segment yet. */
  Optional<ChainTail> find(String cluster, String topic, Uuid topicId, int partition) {
    Optional<ChainEnd.Tail> end = chainEnd.find(cluster, topic, topicId, partition);
    if (end.isEmpty()) {
      return Optional.empty();
    }
    StoredSegment last = end.get().last();
    SegmentHeader header;
    try {
      header = source.verify(last);
    } catch (IntegrityException e) {
      throw new KafkaOffloadException(Kind.INCONSISTENT, "cannot continue the chain of " + topic + "/" + partition
          + " (topic id " + topicId + "): its last segment is damaged (" + e.getMessage() + "). Nothing was"
          + " written. If the topic still holds those offsets, delete " + last.key() + " and run again to store"
          + " them anew", e);
    }
    end.get().previous().ifPresent(previous -> warnIfBroken(previous, last, header));
    return Optional.of(new ChainTail(header.lastOffset() + 1, header.sha256()));
  }

  private void warnIfBroken(StoredSegment previous, StoredSegment last, SegmentHeader lastHeader) {
    Optional<ChainBreak> gapOrOverlap = ChainBreak.between(previous, last);
    if (gapOrOverlap.isPresent()) {
      LOG.warn("{}; `offload kafka verify` reports it", gapOrOverlap.get().describe());
      return;
    }
    try {
      String previousSha = source.readHeader(previous).sha256();
      if (!Objects.equals(previousSha, lastHeader.previousSha256())) {
        LOG.warn("segment {} does not follow {}: it names a predecessor with SHA-256 {}, the one before it has {};"
            + " `offload kafka verify` reports it", last.key(), previous.key(), lastHeader.previousSha256(), previousSha);
      }
    } catch (IntegrityException e) {
      LOG.warn("the segment before the last of {} is damaged ({}); `offload kafka verify` reports it", last.key(),
          e.getMessage());
    }
  }
}
