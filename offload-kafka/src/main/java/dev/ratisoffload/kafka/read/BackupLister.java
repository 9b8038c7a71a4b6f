package dev.ratisoffload.kafka.read;

import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.GroupOffsetsSnapshot;
import dev.ratisoffload.kafka.format.SegmentHeader;
import dev.ratisoffload.kafka.format.TopicManifest;
import dev.ratisoffload.primitives.DaemonThreads;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import dev.ratisoffload.kafka.format.TopicSelection;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Builds a {@link ListReport}: one listing, then every segment's header read in parallel. */
public final class BackupLister {

  private final SegmentSource source;
  private final int parallelism;

  public BackupLister(ObjectStore store, int parallelism) {
    this.source = new SegmentSource(store);
    this.parallelism = Math.max(1, parallelism);
  }

  public ListReport list(String cluster, Optional<String> topic) {
    return list(cluster, KafkaBackupCatalog.scan(source.store(), cluster, topic.map(TopicSelection::of)));
  }

  /** Only the chosen topics. */
  public ListReport list(String cluster, TopicSelection topics) {
    return list(cluster, KafkaBackupCatalog.scan(source.store(), cluster, Optional.of(topics)));
  }

  private ListReport list(String cluster, KafkaBackupCatalog catalog) {
    List<String> problems = new ArrayList<>();
    catalog.strayKeys().forEach(k -> problems.add("unexpected object " + k));
    ExecutorService pool = Executors.newFixedThreadPool(parallelism, DaemonThreads.named("kafka-list"));
    try {
      List<ListReport.TopicListing> topics = new ArrayList<>();
      for (TopicIncarnation incarnation : catalog.incarnations()) {
        topics.add(listTopic(incarnation, pool, problems));
      }
      return new ListReport(cluster, topics, problems);
    } finally {
      pool.shutdownNow();
    }
  }

  private ListReport.TopicListing listTopic(TopicIncarnation incarnation, ExecutorService pool,
      List<String> problems) {
    TopicManifest manifest = null;
    if (incarnation.newestManifest().isPresent()) {
      try {
        manifest = source.readManifest(incarnation.newestManifest().get());
      } catch (IntegrityException e) {
        problems.add(e.getMessage());
      }
    } else {
      problems.add(incarnation.describe() + " has no topic manifest");
    }
    List<ListReport.PartitionListing> partitions = new ArrayList<>();
    for (PartitionChain chain : incarnation.partitions().values()) {
      partitions.add(listPartition(chain, pool));
    }
    long records = partitions.stream().mapToLong(ListReport.PartitionListing::records).sum();
    long bytes = partitions.stream().mapToLong(ListReport.PartitionListing::storedBytes).sum();
    Instant newest = partitions.stream().map(ListReport.PartitionListing::newestRecord)
        .filter(java.util.Objects::nonNull).max(Instant::compareTo).orElse(null);
    Optional<GroupOffsetsSnapshot> groups = newestGroupOffsets(incarnation, problems);
    return new ListReport.TopicListing(incarnation.topic(), incarnation.topicId().toString(),
        manifest == null ? null : manifest.partitions(), incarnation.manifests().size(),
        manifest == null ? null : manifest.createdAt(), partitions, records, bytes, newest,
        groups.map(GroupOffsetsSnapshot::takenAt).orElse(null),
        groups.map(g -> List.copyOf(g.groups().keySet())).orElse(List.of()));
  }

  private Optional<GroupOffsetsSnapshot> newestGroupOffsets(TopicIncarnation incarnation, List<String> problems) {
    GroupOffsetsReader reader = new GroupOffsetsReader(source.store());
    try {
      return reader.newest(incarnation.cluster(), incarnation.topic(), incarnation.topicId(), Optional.empty())
          .map(reader::read);
    } catch (IntegrityException e) {
      problems.add(e.getMessage());
      return Optional.empty();
    }
  }

  private ListReport.PartitionListing listPartition(PartitionChain chain, ExecutorService pool) {
    List<Future<SegmentHeader>> headers = new ArrayList<>();
    for (StoredSegment segment : chain.segments()) {
      headers.add(pool.submit(() -> source.readHeader(segment)));
    }
    long records = 0;
    long holes = 0;
    long newest = -1;
    List<String> problems = new ArrayList<>();
    for (Future<SegmentHeader> future : headers) {
      try {
        SegmentHeader header = future.get();
        records += header.recordCount();
        holes += header.holeOffsets();
        newest = Math.max(newest, header.maxTimestamp());
      } catch (ExecutionException e) {
        if (e.getCause() instanceof IntegrityException ie) {
          problems.add(ie.getMessage());
        } else if (e.getCause() instanceof RuntimeException re) {
          throw re;
        } else {
          throw new IllegalStateException(e.getCause());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while listing", e);
      }
    }
    StoredSegment first = chain.first().orElseThrow();
    StoredSegment last = chain.last().orElseThrow();
    return new ListReport.PartitionListing(chain.partition(), chain.segments().size(), first.firstOffset(),
        last.lastOffset(), records, holes, chain.storedBytes(), newest >= 0 ? Instant.ofEpochMilli(newest) : null,
        chain.breaks().size(), problems,
        chain.trimmedStart().map(KafkaLayout.ChainStartKey::firstOffset).orElse(null));
  }
}
