package dev.ratisoffload.kafka.read;

import dev.ratisoffload.kafka.format.ChainStartMarker;
import dev.ratisoffload.kafka.format.Hole;
import dev.ratisoffload.kafka.format.KafkaLayout.ManifestKey;
import dev.ratisoffload.kafka.format.SegmentEntry;
import dev.ratisoffload.kafka.format.SegmentHeader;
import dev.ratisoffload.kafka.format.SegmentReader;
import dev.ratisoffload.kafka.format.TopicManifest;
import dev.ratisoffload.primitives.DaemonThreads;
import dev.ratisoffload.primitives.Futures;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import dev.ratisoffload.kafka.format.TopicSelection;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Proves a cluster's Kafka backups intact, or says exactly what is not:
 *
 * <ul>
 *   <li>every topic manifest: its hash, rules, and that it names what its key names;</li>
 *   <li>every segment: its whole body and SHA-256, and that its header states the range its key names;</li>
 *   <li>every chain: consecutive segments join with no gap or overlap, each names its predecessor's
 *       SHA-256 (so a segment replaced, reordered or removed from the middle is caught, and a first
 *       segment that names a predecessor shows the start of the chain is missing, unless {@code kafka gc}
 *       removed it: then the newest chain-start marker names an offset at or after the first segment's,
 *       and the segment starting there is the one the marker's SHA-256 names);</li>
 *   <li>partitions fit the manifest's partition count; no stray object sits in the tree.</li>
 * </ul>
 *
 * A chain cut at its end cannot be told from a backup that has not gone further: {@code kafka list}'s
 * newest record time shows how current each partition is.
 */
public final class ChainVerifier {

  public static final int MAX_LISTED_HOLES = 1000;

  private final SegmentSource source;
  private final int parallelism;

  public ChainVerifier(ObjectStore store, int parallelism) {
    this.source = new SegmentSource(store);
    this.parallelism = Math.max(1, parallelism);
  }

  /** Verifies every topic of the cluster, or only {@code topic} when it is present. */
  public VerifyReport verify(String cluster, Optional<String> topic) {
    return verify(cluster, KafkaBackupCatalog.scan(source.store(), cluster, topic.map(TopicSelection::of)));
  }

  /** Only the chosen topics. */
  public VerifyReport verify(String cluster, TopicSelection topics) {
    return verify(cluster, KafkaBackupCatalog.scan(source.store(), cluster, Optional.of(topics)));
  }

  private VerifyReport verify(String cluster, KafkaBackupCatalog catalog) {
    List<String> problems = new ArrayList<>();
    for (String key : catalog.strayKeys()) {
      problems.add("unexpected object " + key + ": not a segment or topic manifest name (renamed or foreign?)");
    }
    List<VerifyReport.TopicResult> topics = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(parallelism, DaemonThreads.named("kafka-verify"));
    try {
      for (TopicIncarnation incarnation : catalog.incarnations()) {
        topics.add(verifyTopic(incarnation, pool));
      }
    } finally {
      pool.shutdownNow();
    }
    return new VerifyReport(cluster, topics, problems);
  }

  private VerifyReport.TopicResult verifyTopic(TopicIncarnation incarnation, ExecutorService pool) {
    List<String> problems = new ArrayList<>();
    TopicManifest newest = null;
    for (ManifestKey key : incarnation.manifests()) {
      try {
        newest = source.readManifest(key);
      } catch (IntegrityException e) {
        problems.add(e.getMessage());
      }
    }
    if (incarnation.manifests().isEmpty()) {
      problems.add(incarnation.describe() + " has segments but no topic manifest (a backup writes it first: it was deleted)");
    }
    problems.addAll(new GroupOffsetsReader(source.store()).verifyAll(incarnation));
    Integer partitionCount = newest == null ? null : newest.partitions();
    List<Future<VerifyReport.PartitionResult>> futures = new ArrayList<>();
    for (PartitionChain chain : incarnation.partitions().values()) {
      futures.add(pool.submit(() -> verifyChain(chain)));
    }
    List<VerifyReport.PartitionResult> partitions = new ArrayList<>();
    for (Future<VerifyReport.PartitionResult> future : futures) {
      partitions.add(Futures.join(future, "verifying"));
    }
    if (partitionCount != null) {
      for (VerifyReport.PartitionResult p : partitions) {
        if (p.partition() >= partitionCount) {
          problems.add(incarnation.describe() + " has a chain for partition " + p.partition()
              + " but its newest manifest says it has " + partitionCount + " partitions");
        }
      }
    }
    return new VerifyReport.TopicResult(incarnation.topic(), incarnation.topicId().toString(),
        incarnation.manifests().size(), partitionCount, partitions, problems);
  }

  /** Verifies one chain; every problem is reported, none stops the others from being checked. */
  private VerifyReport.PartitionResult verifyChain(PartitionChain chain) {
    List<String> problems = new ArrayList<>();
    HoleCollector holes = new HoleCollector();
    long records = 0;
    int verified = 0;
    StoredSegment previous = null;
    String previousSha = null;
    boolean previousKnown = false;
    Optional<ChainStartMarker> trimmed = Optional.empty();
    if (chain.trimmedStart().isPresent()) {
      try {
        trimmed = Optional.of(source.readChainStart(chain.trimmedStart().get()));
      } catch (IntegrityException e) {
        problems.add(e.getMessage());
      }
    }
    boolean trimmedStartFound = false;
    for (StoredSegment segment : chain.segments()) {
      Optional<ChainBreak> chainBreak =
          previous == null ? Optional.empty() : ChainBreak.between(previous, segment);
      chainBreak.ifPresent(b -> problems.add(b.describe()));
      boolean joined = chainBreak.isEmpty();
      SegmentHeader header = null;
      long segmentRecords = 0;
      List<Hole> segmentHoles = new ArrayList<>();
      try (SegmentReader reader = source.open(segment)) {
        header = reader.header();
        for (SegmentEntry entry = reader.nextOutline(); entry != null; entry = reader.nextOutline()) {
          if (entry instanceof Hole hole) {
            segmentHoles.add(hole);
          } else {
            segmentRecords++;
          }
        }
      } catch (IntegrityException e) {
        problems.add(e.getMessage());
        header = null;
      }
      if (header != null) {
        verified++;
        records += segmentRecords;
        segmentHoles.forEach(holes::add);
        boolean trimmedHere = trimmed.isPresent() && trimmed.get().firstOffset() == segment.firstOffset();
        if (trimmedHere && !trimmed.get().segmentSha256().equals(header.sha256())) {
          problems.add("segment " + segment.key() + " is not the one kafka gc kept as the start of the chain of "
              + chain.describe() + ": its SHA-256 is " + header.sha256() + ", the chain-start marker names "
              + trimmed.get().segmentSha256());
        }
        trimmedStartFound |= trimmedHere;
        boolean startRemovedByGc = trimmed.isPresent() && segment.firstOffset() <= trimmed.get().firstOffset();
        if (previous == null && header.previousSha256() != null && !startRemovedByGc) {
          problems.add("the start of the chain of " + chain.describe() + " is missing: its first segment "
              + segment.key() + " names a predecessor with SHA-256 " + header.previousSha256());
        } else if (previous != null && joined && previousKnown && !java.util.Objects.equals(previousSha,
            header.previousSha256())) {
          problems.add("segment " + segment.key() + " does not follow " + previous.key()
              + ": it names a predecessor with SHA-256 " + header.previousSha256() + ", the one before it has "
              + previousSha + " (a segment was replaced or moved)");
        }
        previousSha = header.sha256();
        previousKnown = true;
      } else {
        previousKnown = false;
      }
      previous = segment;
    }
    if (trimmed.isPresent() && !trimmedStartFound) {
      problems.add("the chain-start marker of " + chain.describe() + " says kafka gc kept the chain from offset "
          + trimmed.get().firstOffset() + ", but no intact segment starts there");
    }
    Long first = chain.first().map(StoredSegment::firstOffset).orElse(null);
    Long last = chain.last().map(StoredSegment::lastOffset).orElse(null);
    return new VerifyReport.PartitionResult(chain.partition(), chain.segments().size(), verified, first, last,
        records, holes.offsets, List.copyOf(holes.ranges), holes.ranges.size() >= holes.rangeCount,
        chain.storedBytes(), problems);
  }

  /** Merges holes across segment boundaries and keeps the first {@link #MAX_LISTED_HOLES} ranges. */
  private static final class HoleCollector {
    final List<OffsetRange> ranges = new ArrayList<>();
    long offsets;
    long rangeCount;
    private OffsetRange open;

    void add(Hole hole) {
      offsets += hole.count();
      if (open != null && open.last() + 1 == hole.offset()) {
        open = new OffsetRange(open.first(), hole.lastOffset());
        if (!ranges.isEmpty() && ranges.get(ranges.size() - 1).first() == open.first()) {
          ranges.set(ranges.size() - 1, open);
        }
        return;
      }
      open = new OffsetRange(hole.offset(), hole.lastOffset());
      rangeCount++;
      if (ranges.size() < MAX_LISTED_HOLES) {
        ranges.add(open);
      }
    }
  }
}
