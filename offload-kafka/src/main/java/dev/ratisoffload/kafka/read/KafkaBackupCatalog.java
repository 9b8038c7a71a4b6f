package dev.ratisoffload.kafka.read;

import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.TopicSelection;
import dev.ratisoffload.kafka.format.KafkaLayout.ChainStartKey;
import dev.ratisoffload.kafka.format.KafkaLayout.ManifestKey;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * What a store holds of a cluster's Kafka backups, from one listing: every topic incarnation with its
 * manifests and partition chains (with their chain-start markers), and any key under the tree that is
 * none of the objects a backup or restore writes (group offset snapshots and offset maps are listed by
 * {@link GroupOffsetsReader}). A marker of a partition without segments is such a stray key.
 */
public final class KafkaBackupCatalog {

  private final String cluster;
  private final List<TopicIncarnation> incarnations;
  private final List<String> strayKeys;

  private KafkaBackupCatalog(String cluster, List<TopicIncarnation> incarnations, List<String> strayKeys) {
    this.cluster = cluster;
    this.incarnations = incarnations;
    this.strayKeys = strayKeys;
  }

  /** Every topic of the cluster. */
  public static KafkaBackupCatalog scan(ObjectStore store, String cluster) {
    return build(cluster, store.list(KafkaLayout.clusterPrefix(cluster)));
  }

  /** Every incarnation of one topic. */
  public static KafkaBackupCatalog scan(ObjectStore store, String cluster, String topic) {
    return build(cluster, store.list(KafkaLayout.topicPrefix(cluster, topic)));
  }

  /**
   * Every incarnation of the chosen topics, or of every topic when none are chosen: each named topic's tree
   * is listed alone; with a pattern the cluster's whole tree is, and keys that name no object are then not
   * reported (they cannot be told to belong to a chosen topic).
   */
  public static KafkaBackupCatalog scan(ObjectStore store, String cluster, Optional<TopicSelection> topics) {
    if (topics.isEmpty()) {
      return scan(store, cluster);
    }
    TopicSelection selection = topics.get();
    if (!selection.hasPattern()) {
      List<ObjectInfo> objects = new ArrayList<>();
      selection.names().forEach(topic -> objects.addAll(store.list(KafkaLayout.topicPrefix(cluster, topic))));
      return build(cluster, objects);
    }
    KafkaBackupCatalog all = scan(store, cluster);
    return new KafkaBackupCatalog(cluster,
        all.incarnations.stream().filter(i -> selection.matches(i.topic())).toList(), List.of());
  }

  /** Builds the catalog from a listing (keys outside the cluster's tree are ignored). */
  public static KafkaBackupCatalog build(String cluster, List<ObjectInfo> objects) {
    String prefix = KafkaLayout.clusterPrefix(cluster);
    record Id(String topic, Uuid topicId) {}
    Map<Id, List<ManifestKey>> manifests = new LinkedHashMap<>();
    Map<Id, Map<Integer, List<StoredSegment>>> segments = new LinkedHashMap<>();
    Map<Id, Map<Integer, List<ChainStartKey>>> starts = new LinkedHashMap<>();
    List<String> stray = new ArrayList<>();
    for (ObjectInfo object : objects) {
      if (!object.key().startsWith(prefix)) {
        continue;
      }
      Optional<SegmentKey> segment = KafkaLayout.parseSegmentKey(object.key());
      if (segment.isPresent()) {
        SegmentKey s = segment.get();
        segments.computeIfAbsent(new Id(s.topic(), s.topicId()), k -> new TreeMap<>())
            .computeIfAbsent(s.partition(), k -> new ArrayList<>())
            .add(new StoredSegment(s, object.size()));
        continue;
      }
      Optional<ChainStartKey> start = KafkaLayout.parseChainStartKey(object.key());
      if (start.isPresent()) {
        ChainStartKey c = start.get();
        starts.computeIfAbsent(new Id(c.topic(), c.topicId()), k -> new TreeMap<>())
            .computeIfAbsent(c.partition(), k -> new ArrayList<>()).add(c);
        continue;
      }
      Optional<ManifestKey> manifest = KafkaLayout.parseManifestKey(object.key());
      if (manifest.isPresent()) {
        ManifestKey m = manifest.get();
        manifests.computeIfAbsent(new Id(m.topic(), m.topicId()), k -> new ArrayList<>()).add(m);
        continue;
      }
      if (KafkaLayout.parseGroupOffsetsKey(object.key()).isEmpty()
          && KafkaLayout.parseOffsetMapKey(object.key()).isEmpty()) { // read by GroupOffsetsReader
        stray.add(object.key());
      }
    }
    Map<Id, TopicIncarnation> byId = new LinkedHashMap<>();
    List<Id> ids = new ArrayList<>(manifests.keySet());
    segments.keySet().stream().filter(id -> !manifests.containsKey(id)).forEach(ids::add);
    for (Id id : ids) {
      List<ManifestKey> versions = new ArrayList<>(manifests.getOrDefault(id, List.of()));
      versions.sort(Comparator.comparingInt(ManifestKey::version));
      TreeMap<Integer, PartitionChain> chains = new TreeMap<>();
      Map<Integer, List<ChainStartKey>> startsOfId = starts.getOrDefault(id, Map.of());
      segments.getOrDefault(id, Map.of()).forEach((partition, list) ->
          chains.put(partition, new PartitionChain(cluster, id.topic(), id.topicId(), partition, list,
              startsOfId.getOrDefault(partition, List.of()))));
      startsOfId.forEach((partition, list) -> {
        if (!chains.containsKey(partition)) {
          list.forEach(c -> stray.add(c.key()));
        }
      });
      byId.put(id, new TopicIncarnation(cluster, id.topic(), id.topicId(), List.copyOf(versions), chains));
    }
    starts.forEach((id, byPartition) -> {
      if (!byId.containsKey(id)) {
        byPartition.values().forEach(list -> list.forEach(c -> stray.add(c.key())));
      }
    });
    List<TopicIncarnation> all = new ArrayList<>(byId.values());
    all.sort(Comparator.comparing(TopicIncarnation::topic).thenComparing(i -> i.topicId().toString()));
    return new KafkaBackupCatalog(cluster, List.copyOf(all), List.copyOf(stray));
  }

  public String cluster() {
    return cluster;
  }

  /** Every incarnation, by topic name then topic id. */
  public List<TopicIncarnation> incarnations() {
    return incarnations;
  }

  public List<TopicIncarnation> incarnations(String topic) {
    return incarnations.stream().filter(i -> i.topic().equals(topic)).toList();
  }

  public Optional<TopicIncarnation> incarnation(String topic, Uuid topicId) {
    return incarnations.stream().filter(i -> i.topic().equals(topic) && i.topicId().equals(topicId)).findFirst();
  }

  /** Keys under the cluster's Kafka tree that name no object a backup or restore writes. */
  public List<String> strayKeys() {
    return strayKeys;
  }
}
