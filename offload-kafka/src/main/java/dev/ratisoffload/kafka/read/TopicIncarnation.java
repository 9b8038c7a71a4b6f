package dev.ratisoffload.kafka.read;

import dev.ratisoffload.kafka.format.KafkaLayout.ManifestKey;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import org.apache.kafka.common.Uuid;

/**
 * One topic as it existed under one topic id: its manifest versions (oldest first) and the chains of
 * its partitions. A topic deleted and created again under the same name is a second incarnation.
 */
public record TopicIncarnation(String cluster, String topic, Uuid topicId, List<ManifestKey> manifests,
    SortedMap<Integer, PartitionChain> partitions) {

  public Optional<ManifestKey> newestManifest() {
    return manifests.isEmpty() ? Optional.empty() : Optional.of(manifests.get(manifests.size() - 1));
  }

  public PartitionChain partition(int partition) {
    PartitionChain chain = partitions.get(partition);
    return chain != null ? chain : new PartitionChain(cluster, topic, topicId, partition, List.of());
  }

  public String describe() {
    return "topic " + topic + " (topic id " + topicId + ")";
  }
}
