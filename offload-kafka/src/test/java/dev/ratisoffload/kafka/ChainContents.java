package dev.ratisoffload.kafka;

import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.Hole;
import dev.ratisoffload.kafka.format.SegmentEntry;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.PartitionChain;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.kafka.read.StoredSegment;
import dev.ratisoffload.kafka.read.TopicIncarnation;
import dev.ratisoffload.store.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Everything a topic's chains hold, read back through the public reader, for assertions. */
public record ChainContents(Map<Integer, List<SegmentEntry>> entries, Map<Integer, Integer> segments) {

  /** Reads the only incarnation of the topic (fails if there is not exactly one). */
  public static ChainContents read(ObjectStore store, String cluster, String topic) {
    List<TopicIncarnation> incarnations = KafkaBackupCatalog.scan(store, cluster, topic).incarnations();
    if (incarnations.size() != 1) {
      throw new AssertionError("expected one incarnation of " + topic + ", found " + incarnations);
    }
    return read(store, incarnations.get(0));
  }

  public static ChainContents read(ObjectStore store, TopicIncarnation incarnation) {
    SegmentSource source = new SegmentSource(store);
    Map<Integer, List<SegmentEntry>> entries = new TreeMap<>();
    Map<Integer, Integer> segments = new TreeMap<>();
    for (PartitionChain chain : incarnation.partitions().values()) {
      List<SegmentEntry> all = new ArrayList<>();
      for (StoredSegment segment : chain.segments()) {
        all.addAll(source.readAll(segment));
      }
      entries.put(chain.partition(), all);
      segments.put(chain.partition(), chain.segments().size());
    }
    return new ChainContents(entries, segments);
  }

  public List<BackupRecord> records(int partition) {
    return entries.getOrDefault(partition, List.of()).stream()
        .filter(e -> e instanceof BackupRecord).map(e -> (BackupRecord) e).toList();
  }

  public List<Hole> holes(int partition) {
    return entries.getOrDefault(partition, List.of()).stream()
        .filter(e -> e instanceof Hole).map(e -> (Hole) e).toList();
  }

  /** Asserts that the entries cover every offset from {@code from} to {@code end - 1} exactly once. */
  public void assertCovers(int partition, long from, long end) {
    long next = from;
    for (SegmentEntry e : entries.getOrDefault(partition, List.of())) {
      if (e.offset() != next) {
        throw new AssertionError("partition " + partition + ": expected offset " + next + ", found " + e);
      }
      next += e.offsetCount();
    }
    if (next != end) {
      throw new AssertionError("partition " + partition + ": the chain ends at " + next + ", expected " + end);
    }
  }
}
