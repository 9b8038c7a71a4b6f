package dev.ratisoffload.kafka.backup;

import dev.ratisoffload.kafka.format.GroupSelection;
import dev.ratisoffload.kafka.format.TopicSelection;
import dev.ratisoffload.primitives.ClusterIds;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * What one backup run does: which topics and partitions it reads from which brokers, into which
 * cluster's tree, and how it cuts segments.
 *
 * @param topics the topics backed up, each as its own chains; a pattern's topics created while following
 *     are picked up every {@code topicRecheckInterval}
 * @param partitions the partitions to back up (of a single topic); empty for all of them (and any added
 *     while following)
 * @param follow keep the backup current until stopped, instead of stopping once caught up
 * @param readCommitted read with {@code isolation.level=read_committed} (aborted transactional
 *     records become holes); false reads every record, aborted ones included
 * @param segmentBytes a segment is closed once its body reaches this many bytes (before compression)
 * @param segmentAge a segment is closed once it has been open this long, so the store is never further
 *     behind than that while following
 * @param memoryBudget bytes the open segments of all partitions and the sealed ones waiting to be stored
 *     may hold (their stored bytes and each open segment's buffers; the zstd compressor they share, about
 *     830 KiB, is outside it): when the open ones exceed it they are closed early, and when the waiting
 *     ones take the total over it the consumer waits for the store
 * @param acceptRecreatedTopic start a new chain when the store holds a backup of an earlier topic of
 *     the same name (deleted and created again), instead of refusing
 * @param brokerTimeout how long a metadata or offset request to the broker may take before the backup
 *     gives up as {@code UNAVAILABLE}
 * @param clientProperties extra Kafka client settings (security, for example); those the backup's
 *     correctness rests on are refused ({@link BackupConsumerProperties})
 * @param consumerGroups whose committed offsets are recorded: every group that committed an offset of the
 *     topic whose id matches one of these, entirely
 * @param groupOffsetsInterval follow mode: how often the groups' offsets are recorded (also once at a stop)
 * @param topicRecheckInterval follow mode: how often the topics are described again, for added partitions,
 *     changed configs and new topics a pattern matches
 */
public record BackupSettings(
    String bootstrapServers,
    TopicSelection topics,
    String cluster,
    List<Integer> partitions,
    boolean follow,
    boolean readCommitted,
    long segmentBytes,
    Duration segmentAge,
    long memoryBudget,
    boolean acceptRecreatedTopic,
    Duration brokerTimeout,
    Duration progressInterval,
    Map<String, String> clientProperties,
    GroupSelection consumerGroups,
    Duration groupOffsetsInterval,
    Duration topicRecheckInterval) {

  public static final Duration DEFAULT_GROUP_OFFSETS_INTERVAL = Duration.ofMinutes(1);
  public static final long DEFAULT_SEGMENT_BYTES = 16L * 1024 * 1024;
  public static final Duration DEFAULT_SEGMENT_AGE = Duration.ofSeconds(30);
  public static final long DEFAULT_MEMORY_BUDGET = 256L * 1024 * 1024;
  public static final Duration DEFAULT_TOPIC_RECHECK_INTERVAL = Duration.ofSeconds(30);

  public BackupSettings {
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new IllegalArgumentException("bootstrap servers are required (HOST:PORT)");
    }
    Objects.requireNonNull(topics, "topics");
    ClusterIds.require(cluster);
    partitions = List.copyOf(new TreeSet<>(Objects.requireNonNull(partitions)));
    if (!partitions.isEmpty() && !topics.isSingle()) {
      throw new IllegalArgumentException("--partitions chooses partitions of one topic, but the backup reads "
          + topics + ": back up those partitions in a backup of their topic alone");
    }
    for (int p : partitions) {
      if (p < 0) {
        throw new IllegalArgumentException("invalid partition " + p + ": partitions are numbered from 0");
      }
    }
    if (segmentBytes < 1024 || segmentBytes > 1024L * 1024 * 1024) {
      throw new IllegalArgumentException("segment size " + segmentBytes + " bytes: expected 1 KiB to 1 GiB");
    }
    requirePositive(segmentAge, "segment age");
    requirePositive(brokerTimeout, "broker timeout");
    requirePositive(progressInterval, "progress interval");
    if (memoryBudget < segmentBytes) {
      throw new IllegalArgumentException("memory budget " + memoryBudget + " bytes is below the segment size "
          + segmentBytes);
    }
    BackupConsumerProperties.refuseOwned(clientProperties);
    clientProperties = Map.copyOf(clientProperties);
    Objects.requireNonNull(consumerGroups, "consumer groups");
    requirePositive(groupOffsetsInterval, "group offsets interval");
    requirePositive(topicRecheckInterval, "topic recheck interval");
  }

  /** The one topic backed up; only for settings of a single topic ({@link #forTopic}). */
  public String topic() {
    return topics.single();
  }

  /** Names the backup's clients and threads: its topic, or the cluster name when it chooses several. */
  String label() {
    return topics.isSingle() ? topics.single() : cluster;
  }

  /** The same settings for one of the chosen topics. */
  BackupSettings forTopic(String topic) {
    return new BackupSettings(bootstrapServers, TopicSelection.of(topic), cluster, partitions, follow, readCommitted,
        segmentBytes, segmentAge, memoryBudget, acceptRecreatedTopic, brokerTimeout, progressInterval,
        clientProperties, consumerGroups, groupOffsetsInterval, topicRecheckInterval);
  }

  private static void requirePositive(Duration d, String what) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, not " + d);
    }
  }

  public static Builder builder(String bootstrapServers, String topic, String cluster) {
    return new Builder(bootstrapServers, TopicSelection.of(topic), cluster);
  }

  public static Builder builder(String bootstrapServers, TopicSelection topics, String cluster) {
    return new Builder(bootstrapServers, topics, cluster);
  }

  /** Defaults: all partitions, one-shot, read_committed, 16 MiB / 30 s segments, 256 MiB of memory. */
  public static final class Builder {
    private final String bootstrapServers;
    private final TopicSelection topics;
    private final String cluster;
    private List<Integer> partitions = List.of();
    private boolean follow;
    private boolean readCommitted = true;
    private long segmentBytes = DEFAULT_SEGMENT_BYTES;
    private Duration segmentAge = DEFAULT_SEGMENT_AGE;
    private long memoryBudget = DEFAULT_MEMORY_BUDGET;
    private boolean acceptRecreatedTopic;
    private Duration brokerTimeout = Duration.ofSeconds(30);
    private Duration progressInterval = Duration.ofSeconds(1);
    private Map<String, String> clientProperties = Map.of();
    private GroupSelection consumerGroups = GroupSelection.ALL;
    private Duration groupOffsetsInterval = DEFAULT_GROUP_OFFSETS_INTERVAL;
    private Duration topicRecheckInterval = DEFAULT_TOPIC_RECHECK_INTERVAL;

    private Builder(String bootstrapServers, TopicSelection topics, String cluster) {
      this.bootstrapServers = bootstrapServers;
      this.topics = topics;
      this.cluster = cluster;
    }

    public Builder partitions(List<Integer> partitions) {
      this.partitions = partitions;
      return this;
    }

    public Builder follow(boolean follow) {
      this.follow = follow;
      return this;
    }

    public Builder readCommitted(boolean readCommitted) {
      this.readCommitted = readCommitted;
      return this;
    }

    public Builder segmentBytes(long segmentBytes) {
      this.segmentBytes = segmentBytes;
      return this;
    }

    public Builder segmentAge(Duration segmentAge) {
      this.segmentAge = segmentAge;
      return this;
    }

    public Builder memoryBudget(long memoryBudget) {
      this.memoryBudget = memoryBudget;
      return this;
    }

    public Builder acceptRecreatedTopic(boolean accept) {
      this.acceptRecreatedTopic = accept;
      return this;
    }

    public Builder brokerTimeout(Duration brokerTimeout) {
      this.brokerTimeout = brokerTimeout;
      return this;
    }

    public Builder progressInterval(Duration progressInterval) {
      this.progressInterval = progressInterval;
      return this;
    }

    public Builder clientProperties(Map<String, String> clientProperties) {
      this.clientProperties = clientProperties;
      return this;
    }

    public Builder consumerGroups(GroupSelection groups) {
      this.consumerGroups = groups;
      return this;
    }

    public Builder groupOffsetsInterval(Duration interval) {
      this.groupOffsetsInterval = interval;
      return this;
    }

    public Builder topicRecheckInterval(Duration interval) {
      this.topicRecheckInterval = interval;
      return this;
    }

    public BackupSettings build() {
      return new BackupSettings(bootstrapServers, topics, cluster, partitions, follow, readCommitted, segmentBytes,
          segmentAge, memoryBudget, acceptRecreatedTopic, brokerTimeout, progressInterval,
          clientProperties, consumerGroups, groupOffsetsInterval, topicRecheckInterval);
    }
  }

  public String isolation() {
    return readCommitted ? "read_committed" : "read_uncommitted";
  }

  Optional<List<Integer>> selectedPartitions() {
    return partitions.isEmpty() ? Optional.empty() : Optional.of(partitions);
  }
}
