package dev.ratisoffload.kafka.format;

import dev.ratisoffload.primitives.ClusterIds;
import dev.ratisoffload.store.ObjectKeys;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.Uuid;

/**
 * Where each object of a Kafka backup lives, relative to the store's root:
 *
 * <pre>
 * kafka/&lt;cluster&gt;/&lt;topic&gt;/&lt;topic id&gt;/topic-&lt;version, 10 digits&gt;.manifest
 * kafka/&lt;cluster&gt;/&lt;topic&gt;/&lt;topic id&gt;/&lt;partition, 10 digits&gt;/&lt;first offset, 19 digits&gt;-&lt;last offset, 19 digits&gt;.segment
 * kafka/&lt;cluster&gt;/&lt;topic&gt;/&lt;topic id&gt;/&lt;partition, 10 digits&gt;/chain-start-&lt;first offset, 19 digits&gt;
 * kafka/&lt;cluster&gt;/&lt;topic&gt;/&lt;topic id&gt;/group-offsets-&lt;taken at, epoch ms, 19 digits&gt;.snapshot
 * kafka/&lt;cluster&gt;/&lt;topic&gt;/&lt;topic id&gt;/offset-map-&lt;target topic id&gt;-&lt;written at, epoch ms, 19 digits&gt;.map
 * </pre>
 *
 * The topic id (Kafka's, in its own base64 form) separates a topic from one deleted and created again
 * under the same name: each has its own chains. Zero-padded numbers make key order the order of
 * versions and offsets, and put each segment's range in its name, so a listing shows the chain's order
 * and any gap or overlap. The topic's key segment is {@link TopicNames#toKeySegment}. A chain-start
 * marker says that {@code kafka gc} removed the chain's segments before an offset ({@link ChainStartMarker}).
 */
public final class KafkaLayout {

  public static final String ROOT = "kafka/";
  private static final Pattern SEGMENT_KEY = Pattern.compile(
      "kafka/([^/]+)/([^/]+)/([A-Za-z0-9_-]{22})/([0-9]{10})/([0-9]{19})-([0-9]{19})\\.segment");
  private static final Pattern CHAIN_START_KEY = Pattern.compile(
      "kafka/([^/]+)/([^/]+)/([A-Za-z0-9_-]{22})/([0-9]{10})/chain-start-([0-9]{19})");
  private static final Pattern MANIFEST_KEY = Pattern.compile(
      "kafka/([^/]+)/([^/]+)/([A-Za-z0-9_-]{22})/topic-([0-9]{10})\\.manifest");
  private static final Pattern GROUP_OFFSETS_KEY = Pattern.compile(
      "kafka/([^/]+)/([^/]+)/([A-Za-z0-9_-]{22})/group-offsets-([0-9]{19})\\.snapshot");
  private static final Pattern OFFSET_MAP_KEY = Pattern.compile(
      "kafka/([^/]+)/([^/]+)/([A-Za-z0-9_-]{22})/offset-map-([A-Za-z0-9_-]{22})-([0-9]{19})\\.map");

  private KafkaLayout() {}

  /** Every Kafka backup of a cluster lies under this prefix. */
  public static String clusterPrefix(String cluster) {
    return ROOT + ClusterIds.require(cluster) + "/";
  }

  /** Every incarnation of a topic (every topic id it had) lies under this prefix. */
  public static String topicPrefix(String cluster, String topic) {
    return clusterPrefix(cluster) + TopicNames.toKeySegment(topic) + "/";
  }

  /** One incarnation: its manifests and its partitions' chains. */
  public static String topicIdPrefix(String cluster, String topic, Uuid topicId) {
    return topicPrefix(cluster, topic) + requireTopicId(topicId) + "/";
  }

  /** The chain of one partition. */
  public static String partitionPrefix(String cluster, String topic, Uuid topicId, int partition) {
    if (partition < 0) {
      throw new IllegalArgumentException("negative partition " + partition);
    }
    return topicIdPrefix(cluster, topic, topicId) + String.format("%010d", partition) + "/";
  }

  /** Every segment of a partition whose range starts at {@code firstOffset} (one, unless two writers raced). */
  public static String segmentsStartingAt(String cluster, String topic, Uuid topicId, int partition,
      long firstOffset) {
    return partitionPrefix(cluster, topic, topicId, partition) + String.format("%019d", firstOffset) + "-";
  }

  public static String manifestPrefix(String cluster, String topic, Uuid topicId) {
    return topicIdPrefix(cluster, topic, topicId) + "topic-";
  }

  /** Every consumer-group offset snapshot of an incarnation, oldest first in key order. */
  public static String groupOffsetsPrefix(String cluster, String topic, Uuid topicId) {
    return topicIdPrefix(cluster, topic, topicId) + "group-offsets-";
  }

  /** Every offset map from an incarnation, into any target topic. */
  public static String offsetMapsPrefix(String cluster, String topic, Uuid topicId) {
    return topicIdPrefix(cluster, topic, topicId) + "offset-map-";
  }

  /** Every offset map from an incarnation into one target topic (by its id), oldest first in key order. */
  public static String offsetMapPrefix(String cluster, String topic, Uuid topicId, Uuid targetTopicId) {
    return offsetMapsPrefix(cluster, topic, topicId) + requireTopicId(targetTopicId) + "-";
  }

  /** A topic id as keys write it, checked to be a key segment (Kafka's form may start with '-' or '_'). */
  static String requireTopicId(Uuid topicId) {
    if (topicId == null || Uuid.ZERO_UUID.equals(topicId)) {
      throw new IllegalArgumentException("missing topic id");
    }
    return ObjectKeys.requireValid(topicId.toString());
  }

  /** Where a segment lives: its topic incarnation, partition and offset range. */
  public record SegmentKey(String cluster, String topic, Uuid topicId, int partition, long firstOffset,
      long lastOffset) {

    public SegmentKey {
      ClusterIds.require(cluster);
      TopicNames.requireValid(topic);
      requireTopicId(topicId);
      if (partition < 0 || firstOffset < 0 || lastOffset < firstOffset) {
        throw new IllegalArgumentException("invalid segment: partition " + partition + ", offsets " + firstOffset
            + "-" + lastOffset);
      }
    }

    public static SegmentKey of(String cluster, String topic, SegmentHeader header) {
      return new SegmentKey(cluster, topic, header.topicId(), header.partition(), header.firstOffset(),
          header.lastOffset());
    }

    public String key() {
      return partitionPrefix(cluster, topic, topicId, partition)
          + String.format("%019d-%019d.segment", firstOffset, lastOffset);
    }

    /** "topic/partition offsets first-last", for messages. */
    public String describe() {
      return topic + "/" + partition + " offsets " + firstOffset + "-" + lastOffset;
    }

    /** Whether a header describes exactly this segment; null if so, else what differs. */
    public String mismatch(SegmentHeader header) {
      if (!header.topicId().equals(topicId)) {
        return "it belongs to topic id " + header.topicId() + ", its key names " + topicId;
      }
      if (header.partition() != partition) {
        return "it belongs to partition " + header.partition() + ", its key names " + partition;
      }
      if (header.firstOffset() != firstOffset || header.lastOffset() != lastOffset) {
        return "it covers offsets " + header.firstOffset() + "-" + header.lastOffset() + ", its key names "
            + firstOffset + "-" + lastOffset;
      }
      return null;
    }
  }

  /** Where the marker of a chain trimmed to start at {@code firstOffset} lives. */
  public record ChainStartKey(String cluster, String topic, Uuid topicId, int partition, long firstOffset) {

    public ChainStartKey {
      ClusterIds.require(cluster);
      TopicNames.requireValid(topic);
      requireTopicId(topicId);
      if (partition < 0 || firstOffset < 0) {
        throw new IllegalArgumentException("invalid chain start: partition " + partition + ", offset " + firstOffset);
      }
    }

    public String key() {
      return partitionPrefix(cluster, topic, topicId, partition) + String.format("chain-start-%019d", firstOffset);
    }
  }

  /** Where a topic manifest lives: one version of what the backup knows about a topic incarnation. */
  public record ManifestKey(String cluster, String topic, Uuid topicId, int version) {

    public ManifestKey {
      ClusterIds.require(cluster);
      TopicNames.requireValid(topic);
      requireTopicId(topicId);
      if (version < 1) {
        throw new IllegalArgumentException("manifest version " + version + " (they start at 1)");
      }
    }

    public String key() {
      return manifestPrefix(cluster, topic, topicId) + String.format("%010d.manifest", version);
    }
  }

  /** Where a snapshot of consumer-group offsets lives; the time it was taken orders the keys. */
  public record GroupOffsetsKey(String cluster, String topic, Uuid topicId, long takenAtMillis) {

    public GroupOffsetsKey {
      ClusterIds.require(cluster);
      TopicNames.requireValid(topic);
      requireTopicId(topicId);
      if (takenAtMillis < 0) {
        throw new IllegalArgumentException("snapshot time " + takenAtMillis + " is before 1970");
      }
    }

    public String key() {
      return groupOffsetsPrefix(cluster, topic, topicId) + String.format("%019d.snapshot", takenAtMillis);
    }
  }

  /** Where an offset map from a restore into one target topic lives; the time it was written orders the keys. */
  public record OffsetMapKey(String cluster, String topic, Uuid topicId, Uuid targetTopicId, long writtenAtMillis) {

    public OffsetMapKey {
      ClusterIds.require(cluster);
      TopicNames.requireValid(topic);
      requireTopicId(topicId);
      requireTopicId(targetTopicId);
      if (writtenAtMillis < 0) {
        throw new IllegalArgumentException("offset map time " + writtenAtMillis + " is before 1970");
      }
    }

    public String key() {
      return offsetMapPrefix(cluster, topic, topicId, targetTopicId) + String.format("%019d.map", writtenAtMillis);
    }
  }

  /** Parses a group offset snapshot's key; empty for any other key. */
  public static Optional<GroupOffsetsKey> parseGroupOffsetsKey(String key) {
    Matcher m = GROUP_OFFSETS_KEY.matcher(key);
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      GroupOffsetsKey parsed = new GroupOffsetsKey(m.group(1), TopicNames.fromKeySegment(m.group(2)),
          Uuid.fromString(m.group(3)), Long.parseLong(m.group(4)));
      return parsed.key().equals(key) ? Optional.of(parsed) : Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Parses an offset map's key; empty for any other key. */
  public static Optional<OffsetMapKey> parseOffsetMapKey(String key) {
    Matcher m = OFFSET_MAP_KEY.matcher(key);
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      OffsetMapKey parsed = new OffsetMapKey(m.group(1), TopicNames.fromKeySegment(m.group(2)),
          Uuid.fromString(m.group(3)), Uuid.fromString(m.group(4)), Long.parseLong(m.group(5)));
      return parsed.key().equals(key) ? Optional.of(parsed) : Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Parses a segment key; empty for any other key, including malformed names in the tree. */
  public static Optional<SegmentKey> parseSegmentKey(String key) {
    Matcher m = SEGMENT_KEY.matcher(key);
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      SegmentKey parsed = new SegmentKey(m.group(1), TopicNames.fromKeySegment(m.group(2)),
          Uuid.fromString(m.group(3)), Integer.parseInt(m.group(4)), Long.parseLong(m.group(5)),
          Long.parseLong(m.group(6)));
      return parsed.key().equals(key) ? Optional.of(parsed) : Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Parses a chain-start marker's key; empty for any other key. */
  public static Optional<ChainStartKey> parseChainStartKey(String key) {
    Matcher m = CHAIN_START_KEY.matcher(key);
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      ChainStartKey parsed = new ChainStartKey(m.group(1), TopicNames.fromKeySegment(m.group(2)),
          Uuid.fromString(m.group(3)), Integer.parseInt(m.group(4)), Long.parseLong(m.group(5)));
      return parsed.key().equals(key) ? Optional.of(parsed) : Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Parses a topic manifest key; empty for any other key. */
  public static Optional<ManifestKey> parseManifestKey(String key) {
    Matcher m = MANIFEST_KEY.matcher(key);
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      ManifestKey parsed = new ManifestKey(m.group(1), TopicNames.fromKeySegment(m.group(2)),
          Uuid.fromString(m.group(3)), Integer.parseInt(m.group(4)));
      return parsed.key().equals(key) ? Optional.of(parsed) : Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
