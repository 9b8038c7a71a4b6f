package dev.ratisoffload.kafka.restore;

import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.Hole;
import dev.ratisoffload.kafka.format.SegmentEntry;
import dev.ratisoffload.kafka.format.SegmentHeader;
import dev.ratisoffload.kafka.format.SegmentReader;
import dev.ratisoffload.kafka.read.ChainFollower;
import dev.ratisoffload.kafka.read.PartitionChain;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.kafka.read.StoredSegment;
import dev.ratisoffload.kafka.read.TopicIncarnation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * One partition of a following restore: where it continues, proven from the target alone, and each
 * step's new segments sent in order.
 */
final class StandbyPartition {

  /** What a partition's follower did, kept across retries for the summary. */
  static final class Counts {
    final int partition;
    long restored;
    long holesSkipped;
    long nextTarget;

    Counts(int partition) {
      this.partition = partition;
    }
  }

  private final RestoreSettings settings;
  private final SegmentSource source;
  private final ChainFollower follower;
  private final Counts counts;
  private final RestoreListener listener;
  private final ChainLinks links = new ChainLinks();
  private final String targetName;
  /** The target's configs when the partition resumed: what every segment's records are checked against. */
  private final Map<String, String> targetConfigs;
  /** The producer's codec, for sizing records as the broker checks them. */
  private final String codec;
  /** The next source offset to send; records below it are already in the target. */
  private long nextSource;

  private StandbyPartition(RestoreSettings settings, SegmentSource source, ChainFollower follower, Counts counts,
      RestoreListener listener, long nextSource, String targetName, Map<String, String> targetConfigs) {
    this.settings = settings;
    this.source = source;
    this.follower = follower;
    this.counts = counts;
    this.listener = listener;
    this.nextSource = nextSource;
    this.targetName = targetName;
    this.targetConfigs = targetConfigs;
    this.codec = RestoreCompression.codec(settings.compression(), targetConfigs);
  }

  /**
   * Finds where the partition continues: at the target's high watermark, once the target's last record
   * equals the backup's record at that position (key, value, headers, and the timestamp when the target
   * keeps CreateTime). An empty target starts at the chain's beginning.
   */
  static StandbyPartition resume(RestoreSettings settings, SegmentSource source, TopicIncarnation incarnation,
      TargetTopic target, Counts counts, RestoreListener listener) {
    int p = counts.partition;
    boolean preserve = settings.offsetMode() == OffsetMode.PRESERVE;
    long hw = target.endOffsets(List.of(p)).get(p);
    String where = "target " + target.name() + "/" + p;
    Map<String, String> configs = target.configs();
    long nextSource;
    if (hw == 0) {
      nextSource = 0;
    } else {
      long start = target.startOffsets(List.of(p)).get(p);
      Optional<BackupRecord> last = start > hw - 1 ? Optional.empty() : target.lastRecord(p, start, hw);
      if (last.isEmpty()) {
        throw new KafkaOffloadException(Kind.REFUSED, where + ": it holds no record below its high watermark " + hw
            + " (log start offset " + start + "; retention removed them, or only transaction markers are left), so"
            + " nothing proves the target holds this backup's records; restore into a new topic (and give it a"
            + " longer retention.ms)");
      }
      long lastOffset = last.get().offset();
      if (lastOffset < hw - 1 && !preserve) {
        throw new KafkaOffloadException(Kind.REFUSED, where + ": its offsets " + (lastOffset + 1) + "-" + (hw - 1)
            + " hold no record (transaction markers or compacted records), but --offsets renumber writes every"
            + " offset as a record: the target holds something else; follow into an empty topic or the one this"
            + " backup restored into");
      }
      PartitionChain chain = incarnation.partition(p);
      if (!preserve && chain.trimmedStart().isPresent()) {
        // Renumber mode counts records from the chain's first segment, which gc moved: no position is proven.
        throw new KafkaOffloadException(Kind.REFUSED, where + " holds " + hw + " renumbered records, but kafka gc"
            + " removed the start of the chain of " + chain.describe() + " (it now starts at offset "
            + chain.trimmedStart().get().firstOffset() + "), so nothing proves which record comes next; restore"
            + " into a new topic (a preserve-mode standby is not affected by gc)");
      }
      BackupRecord expected = preserve ? recordAtOffset(source, chain, lastOffset) : recordAtIndex(source, chain,
          lastOffset);
      if (expected == null) {
        throw new KafkaOffloadException(Kind.REFUSED, where + " holds " + hw + " offsets, but the backup of "
            + chain.describe() + " has no record at " + (preserve ? "offset " : "position ") + lastOffset
            + ": the target holds something else; follow into an empty topic or the one this backup restored into");
      }
      String difference = difference(last.get(), expected, TargetTopic.keepsCreateTime(configs));
      if (difference != null) {
        throw new KafkaOffloadException(Kind.REFUSED, where + ": its last record (offset " + lastOffset + ") differs"
            + " from the backup's record at offset " + expected.offset() + " (" + difference + "): the target holds"
            + " something else; follow into an empty topic or the one this backup restored into");
      }
      if (preserve) {
        // The offsets after the last record hold none on the target (markers): the backup must have none there.
        BackupRecord between = firstRecordIn(source, chain, lastOffset + 1, hw);
        long covered = chain.last().map(StoredSegment::lastOffset).orElse(-1L);
        if (covered < hw - 1) {
          throw new KafkaOffloadException(Kind.REFUSED, where + " holds offsets up to " + (hw - 1) + ", the backup of "
              + chain.describe() + " only up to " + covered + ": the target holds something else; follow into an"
              + " empty topic or the one this backup restored into");
        }
        if (between != null) {
          throw new KafkaOffloadException(Kind.REFUSED, where + " holds no record at offsets " + (lastOffset + 1)
              + "-" + (hw - 1) + ", but the backup has one at offset " + between.offset() + ": the target holds"
              + " something else; follow into an empty topic or the one this backup restored into");
        }
      }
      nextSource = preserve ? hw : expected.offset() + 1;
    }
    long rest = nextSource;
    long restBytes = incarnation.partition(p).segments().stream().filter(s -> s.lastOffset() >= rest)
        .mapToLong(StoredSegment::size).sum();
    List<String> refusals = TargetChecks.retentionBytes(target.name(), configs, p, restBytes);
    if (!refusals.isEmpty()) {
      throw TargetTopic.refused(refusals.get(0) + "; the standby holds every record before backup offset "
          + nextSource);
    }
    counts.nextTarget = hw;
    listener.resumed(p, hw, nextSource);
    // Preserve mode starts an empty target at offset 0 exactly: a chain that starts later is a gap.
    Optional<Long> from = hw == 0 && !preserve ? Optional.empty() : Optional.of(nextSource);
    ChainFollower follower = new ChainFollower(source.store(), settings.cluster(), settings.topic(),
        incarnation.topicId(), p, from);
    return new StandbyPartition(settings, source, follower, counts, listener, nextSource, target.name(), configs);
  }

  /**
   * Sends what the backup stored since the last step; stops between segments when asked to.
   *
   * @return whether the backup had grown (a new segment was found)
   */
  boolean step(RecordSender sender, BooleanSupplier stop) {
    List<StoredSegment> segments = follower.poll();
    for (StoredSegment segment : segments) {
      if (stop.getAsBoolean()) {
        return true;
      }
      List<SegmentEntry> entries;
      SegmentHeader header;
      // Read whole (segments are bounded): nothing of a corrupt segment is sent.
      try (SegmentReader reader = source.open(segment)) {
        entries = reader.readAll();
        header = reader.header();
      }
      links.accept(segment, header);
      refuseWhatTheTargetCannotKeep(entries);
      for (SegmentEntry entry : entries) {
        if (entry instanceof BackupRecord r) {
          if (r.offset() < nextSource) {
            continue;
          }
          sender.send(counts.partition, r, settings.offsetMode() == OffsetMode.PRESERVE ? r.offset() : counts.nextTarget);
          counts.nextTarget++;
          counts.restored++;
          nextSource = r.offset() + 1;
        } else if (entry instanceof Hole hole && hole.lastOffset() >= nextSource) {
          if (settings.offsetMode() == OffsetMode.PRESERVE) {
            throw new KafkaOffloadException(Kind.INCONSISTENT, "the backup of " + settings.topic() + "/"
                + counts.partition + " has no record at offsets " + Math.max(hole.offset(), nextSource) + "-"
                + hole.lastOffset() + " (a hole: compaction, a transaction marker or an aborted transaction), which"
                + " --offsets preserve cannot reproduce; the standby holds every record before offset "
                + nextSource + ". Restore into a new topic with --offsets renumber to go on");
          }
          counts.holesSkipped += hole.lastOffset() - Math.max(hole.offset(), nextSource) + 1;
          nextSource = hole.lastOffset() + 1;
        }
      }
      listener.segmentSent(counts.partition, sender.sent());
    }
    return !segments.isEmpty();
  }

  /** The checks a one-shot restore makes of all its records, made of each segment's before it is sent. */
  private void refuseWhatTheTargetCannotKeep(List<SegmentEntry> entries) {
    List<BackupRecord> toSend = new ArrayList<>();
    for (SegmentEntry entry : entries) {
      if (entry instanceof BackupRecord r && r.offset() >= nextSource) {
        toSend.add(r);
      }
    }
    if (toSend.isEmpty()) {
      return;
    }
    List<String> refusals = TargetChecks.capacity(targetName, targetConfigs,
        List.of(PartitionPlan.ofRecords(counts.partition, toSend)), Instant.now(),
        RestoreCompression.sizer(codec, (plan, offset) -> toSend.stream().filter(r -> r.offset() == offset)
            .findFirst().orElseThrow()));
    if (!refusals.isEmpty()) {
      throw TargetTopic.refused(String.join("; ", refusals) + "; the standby holds every record before backup offset "
          + nextSource);
    }
  }

  /** The record at a source offset, or null when the chain has none there. */
  private static BackupRecord recordAtOffset(SegmentSource source, PartitionChain chain, long offset) {
    for (StoredSegment segment : chain.segments()) {
      if (segment.firstOffset() <= offset && offset <= segment.lastOffset()) {
        for (SegmentEntry entry : source.readAll(segment)) {
          if (entry instanceof BackupRecord r && r.offset() == offset) {
            return r;
          }
        }
        return null;
      }
    }
    return null;
  }

  /** The first record of the chain in {@code [from, end)}, or null when it has none there. */
  private static BackupRecord firstRecordIn(SegmentSource source, PartitionChain chain, long from, long end) {
    for (StoredSegment segment : chain.segments()) {
      if (segment.lastOffset() >= from && segment.firstOffset() < end) {
        for (SegmentEntry entry : source.readAll(segment)) {
          if (entry instanceof BackupRecord r && r.offset() >= from && r.offset() < end) {
            return r;
          }
        }
      }
    }
    return null;
  }

  /** The record at a position (0 for the first record of the chain), or null when the chain is shorter. */
  private static BackupRecord recordAtIndex(SegmentSource source, PartitionChain chain, long index) {
    long before = 0;
    for (StoredSegment segment : chain.segments()) {
      long count = source.readHeader(segment).recordCount();
      if (index < before + count) {
        long position = before;
        for (SegmentEntry entry : source.readAll(segment)) {
          if (entry instanceof BackupRecord r && position++ == index) {
            return r;
          }
        }
        return null;
      }
      before += count;
    }
    return null;
  }

  /** What differs between the target's record and the backup's, or null when nothing that must match does. */
  private static String difference(BackupRecord stored, BackupRecord backedUp, boolean compareTimestamps) {
    if (!java.util.Arrays.equals(stored.key(), backedUp.key())) {
      return "the keys differ";
    }
    if (!java.util.Arrays.equals(stored.value(), backedUp.value())) {
      return "the values differ";
    }
    if (!stored.headers().equals(backedUp.headers())) {
      return "the headers differ";
    }
    if (compareTimestamps && backedUp.timestampKind() != dev.ratisoffload.kafka.format.TimestampKind.NONE
        && stored.timestamp() != backedUp.timestamp()) {
      return "the timestamps differ: " + stored.timestamp() + " in the target, " + backedUp.timestamp() + " backed up";
    }
    return null;
  }
}
