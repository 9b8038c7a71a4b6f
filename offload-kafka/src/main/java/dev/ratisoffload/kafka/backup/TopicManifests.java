package dev.ratisoffload.kafka.backup;

import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.format.KafkaLayout.ManifestKey;
import dev.ratisoffload.kafka.format.TopicManifest;
import dev.ratisoffload.kafka.format.TopicManifestCodec;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.primitives.ToolVersion;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.ObjectConflictException;
import java.time.Clock;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/** Keeps a topic incarnation's newest manifest in step with the topic: a new version when anything changed. */
final class TopicManifests {

  private final SegmentSource source;
  private final Clock clock;

  TopicManifests(SegmentSource source, Clock clock) {
    this.source = source;
    this.clock = clock;
  }

  /** The newest version stored for the incarnation, if any. */
  Optional<Versioned> newest(String cluster, String topic, Uuid topicId) {
    return source.newestManifest(cluster, topic, topicId).map(key -> new Versioned(key, source.readManifest(key)));
  }

  /**
   * Writes {@code current} as the next version unless the newest stored one already says the same;
   * returns the version now in force.
   */
  Versioned ensure(TopicManifest current, Optional<Versioned> newest) {
    if (newest.isPresent() && newest.get().manifest().sameTopicState(current)) {
      return newest.get();
    }
    int version = newest.map(v -> v.key().version() + 1).orElse(1);
    ManifestKey key = new ManifestKey(current.cluster(), current.topic(), Uuid.fromString(current.topicId()), version);
    TopicManifest stamped = new TopicManifest(current.format(), current.cluster(), current.topic(), current.topicId(),
        current.partitions(), current.replicationFactor(), current.isolation(), current.configs(),
        current.topicConfigs(), clock.instant(), ToolVersion.get());
    try {
      source.store().putIfAbsent(key.key(), Content.of(TopicManifestCodec.encode(stamped)));
    } catch (ObjectConflictException e) {
      throw new KafkaOffloadException(Kind.REFUSED, "another backup of topic " + current.topic()
          + " wrote topic manifest " + key.key() + " at the same time: run one backup per topic", e);
    }
    return new Versioned(key, stamped);
  }

  record Versioned(ManifestKey key, TopicManifest manifest) {}
}
