package dev.ratisoffload.kafka.restore;

import dev.ratisoffload.kafka.format.GroupSelection;
import dev.ratisoffload.kafka.format.TopicNames;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * What a restore does: which backup (cluster, topic, optionally the topic id of one incarnation), into
 * which topic of which cluster, how offsets are written, up to when, once or following.
 *
 * @param replicationFactor for {@code createTopic}: empty to use the backed-up topic's
 * @param until only the records of each partition up to the first one later than this time
 * @param pollInterval how often a follower looks for new segments (at least {@link #MIN_POLL})
 * @param drainAfter follow mode: end once the backup has grown by no segment for this long and every
 *     record is on the target, after checking each partition's last record (promoting a standby)
 * @param brokerTimeout how long a broker request may take before it counts as unreachable
 * @param clientProperties Kafka client properties (security) applied to every client
 * @param compression the producer's codec ({@link RestoreCompression#FLAG_VALUES}); empty for the target
 *     topic's {@code compression.type}
 * @param allowUncommitted restore a backup read with read_uncommitted, whose aborted transactional records
 *     would be written as committed ones; refused without it
 * @param consumerGroups the groups whose backed-up offsets are committed on the target once the records are
 *     in; empty to commit none
 */
public record RestoreSettings(
    String bootstrapServers,
    String cluster,
    String topic,
    Optional<Uuid> topicId,
    String targetTopic,
    List<Integer> partitions,
    OffsetMode offsetMode,
    boolean createTopic,
    Optional<Short> replicationFactor,
    Optional<Instant> until,
    boolean follow,
    Duration pollInterval,
    Optional<Duration> drainAfter,
    Duration brokerTimeout,
    Map<String, String> clientProperties,
    Optional<String> compression,
    boolean allowUncommitted,
    Optional<GroupSelection> consumerGroups) {

  public static final Duration MIN_POLL = Duration.ofMillis(100);

  public RestoreSettings {
    Objects.requireNonNull(bootstrapServers, "bootstrap servers");
    Objects.requireNonNull(cluster, "cluster");
    TopicNames.requireValid(topic);
    TopicNames.requireValid(targetTopic);
    partitions = partitions.stream().distinct().sorted().toList();
    if (partitions.stream().anyMatch(p -> p < 0)) {
      throw new IllegalArgumentException("a partition number cannot be negative: " + partitions);
    }
    if (pollInterval.compareTo(MIN_POLL) < 0) {
      throw new IllegalArgumentException("the poll interval " + pollInterval.toMillis() + " ms is below the floor of "
          + MIN_POLL.toMillis() + " ms");
    }
    if (follow && until.isPresent()) {
      throw new IllegalArgumentException("--until and --follow exclude each other: a standby follows the whole backup");
    }
    if (drainAfter.isPresent() && !follow) {
      throw new IllegalArgumentException("--drain-after needs --follow: it ends a follower once it is caught up");
    }
    if (replicationFactor.isPresent() && replicationFactor.get() < 1) {
      throw new IllegalArgumentException("the replication factor must be at least 1, not " + replicationFactor.get());
    }
    clientProperties = Map.copyOf(clientProperties);
    RestoreCompression.requireValid(compression);
    if (consumerGroups.isPresent() && follow && drainAfter.isEmpty()) {
      throw new IllegalArgumentException("--consumer-groups with --follow needs --drain-after: the groups' offsets"
          + " are committed once the standby is drained, before it is promoted");
    }
  }

  public static Builder builder(String bootstrapServers, String cluster, String topic) {
    return new Builder(bootstrapServers, cluster, topic);
  }

  /** Settings with defaults: the same topic name, every partition, preserve, one-shot. */
  public static final class Builder {
    private final String bootstrapServers;
    private final String cluster;
    private final String topic;
    private Optional<Uuid> topicId = Optional.empty();
    private String targetTopic;
    private List<Integer> partitions = List.of();
    private OffsetMode offsetMode = OffsetMode.PRESERVE;
    private boolean createTopic;
    private Optional<Short> replicationFactor = Optional.empty();
    private Optional<Instant> until = Optional.empty();
    private boolean follow;
    private Duration pollInterval = Duration.ofSeconds(1);
    private Optional<Duration> drainAfter = Optional.empty();
    private Duration brokerTimeout = Duration.ofSeconds(30);
    private Map<String, String> clientProperties = Map.of();
    private Optional<String> compression = Optional.empty();
    private boolean allowUncommitted;
    private Optional<GroupSelection> consumerGroups = Optional.empty();

    private Builder(String bootstrapServers, String cluster, String topic) {
      this.bootstrapServers = bootstrapServers;
      this.cluster = cluster;
      this.topic = topic;
      this.targetTopic = topic;
    }

    public Builder topicId(Uuid id) {
      this.topicId = Optional.ofNullable(id);
      return this;
    }

    public Builder targetTopic(String name) {
      this.targetTopic = name;
      return this;
    }

    public Builder partitions(List<Integer> list) {
      this.partitions = List.copyOf(list);
      return this;
    }

    public Builder offsetMode(OffsetMode mode) {
      this.offsetMode = Objects.requireNonNull(mode);
      return this;
    }

    public Builder createTopic(boolean create) {
      this.createTopic = create;
      return this;
    }

    public Builder replicationFactor(Short factor) {
      this.replicationFactor = Optional.ofNullable(factor);
      return this;
    }

    public Builder until(Instant time) {
      this.until = Optional.ofNullable(time);
      return this;
    }

    public Builder follow(boolean follow) {
      this.follow = follow;
      return this;
    }

    public Builder pollInterval(Duration interval) {
      this.pollInterval = interval;
      return this;
    }

    public Builder drainAfter(Duration quiet) {
      this.drainAfter = Optional.ofNullable(quiet);
      return this;
    }

    public Builder brokerTimeout(Duration timeout) {
      this.brokerTimeout = timeout;
      return this;
    }

    public Builder clientProperties(Map<String, String> properties) {
      this.clientProperties = properties;
      return this;
    }

    public Builder compression(String codec) {
      this.compression = Optional.ofNullable(codec);
      return this;
    }

    public Builder allowUncommitted(boolean allow) {
      this.allowUncommitted = allow;
      return this;
    }

    public Builder consumerGroups(GroupSelection groups) {
      this.consumerGroups = Optional.ofNullable(groups);
      return this;
    }

    public RestoreSettings build() {
      return new RestoreSettings(bootstrapServers, cluster, topic, topicId, targetTopic, partitions, offsetMode,
          createTopic, replicationFactor, until, follow, pollInterval, drainAfter, brokerTimeout, clientProperties,
          compression, allowUncommitted, consumerGroups);
    }
  }
}
