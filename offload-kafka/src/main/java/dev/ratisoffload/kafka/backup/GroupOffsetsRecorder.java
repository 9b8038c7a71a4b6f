package dev.ratisoffload.kafka.backup;

import dev.ratisoffload.kafka.KafkaClients;
import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.format.GroupOffsetsCodec;
import dev.ratisoffload.kafka.format.GroupOffsetsSnapshot;
import dev.ratisoffload.kafka.format.GroupSelection;
import dev.ratisoffload.kafka.format.KafkaLayout.GroupOffsetsKey;
import dev.ratisoffload.primitives.Printable;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.ObjectConflictException;
import dev.ratisoffload.store.ObjectStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.AuthorizationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the committed offsets of the consumer groups that read the backed-up topic as a snapshot in
 * the store. Each offset is capped at where the stored chain ends, so a snapshot never names a record
 * the backup does not hold; a snapshot equal to the last one this recorder stored is not stored again.
 *
 * <p>Where every group is recorded (the default) and the cluster does not let this client describe
 * groups, the backup goes on without them and says so once; groups chosen by name must be recorded.
 */
final class GroupOffsetsRecorder {

  private static final Logger LOG = LoggerFactory.getLogger(GroupOffsetsRecorder.class);

  private final Admin admin;
  private final ObjectStore store;
  private final BackupSettings settings;
  private final Uuid topicId;
  private final Clock clock;
  private GroupOffsetsSnapshot last;
  private boolean refused;

  GroupOffsetsRecorder(Admin admin, ObjectStore store, BackupSettings settings, Uuid topicId, Clock clock) {
    this.admin = admin;
    this.store = store;
    this.settings = settings;
    this.topicId = topicId;
    this.clock = clock;
  }

  /**
   * Takes and stores a snapshot.
   *
   * @param storedEnds per partition, the offset the stored chain continues at
   * @param timeout how long each broker call may take
   * @return the key stored, or empty when the offsets had not changed (or groups cannot be described)
   */
  Optional<GroupOffsetsKey> record(Map<Integer, Long> storedEnds, Duration timeout) {
    if (refused) {
      return Optional.empty();
    }
    Map<String, Map<Integer, Long>> groups;
    try {
      groups = committed(storedEnds, timeout);
    } catch (KafkaOffloadException e) {
      if (settings.consumerGroups() == GroupSelection.ALL && e.getCause() instanceof AuthorizationException) {
        refused = true;
        LOG.warn("the cluster does not let this client read consumer groups ({}); the backup goes on without"
            + " their offsets: grant Describe on the groups, or choose them with --consumer-groups", e.getCause()
            .getMessage());
        return Optional.empty();
      }
      throw e;
    }
    Instant now = Instant.ofEpochMilli(clock.millis());
    GroupOffsetsSnapshot snapshot = new GroupOffsetsSnapshot(GroupOffsetsSnapshot.FORMAT_VERSION,
        settings.cluster(), settings.topic(), topicId.toString(), now, groups);
    if (snapshot.sameOffsets(last)) {
      return Optional.empty();
    }
    GroupOffsetsKey key = new GroupOffsetsKey(settings.cluster(), settings.topic(), topicId, now.toEpochMilli());
    try {
      store.putIfAbsent(key.key(), Content.of(GroupOffsetsCodec.encode(snapshot)));
    } catch (ObjectConflictException e) {
      LOG.debug("another snapshot was stored at {} in the same millisecond; keeping it", key.key());
    }
    last = snapshot;
    LOG.debug("recorded the offsets of {} consumer groups in {}", groups.size(), key.key());
    return Optional.of(key);
  }

  /** The selected groups' committed offsets of the topic, capped at the stored ends. */
  private Map<String, Map<Integer, Long>> committed(Map<Integer, Long> storedEnds, Duration timeout) {
    Collection<GroupListing> listed = KafkaClients.await(admin.listGroups(ListGroupsOptions.forConsumerGroups()).all(),
        timeout, settings.bootstrapServers(), "list the consumer groups reading topic",
        settings.topic());
    List<TopicPartition> partitions = storedEnds.keySet().stream()
        .map(p -> new TopicPartition(settings.topic(), p)).toList();
    Map<String, ListConsumerGroupOffsetsSpec> specs = new TreeMap<>();
    for (String group : listed.stream().map(GroupListing::groupId).filter(settings.consumerGroups()::matches).toList()) {
      String problem = GroupOffsetsCodec.groupIdProblem(group);
      if (problem == null) {
        specs.put(group, new ListConsumerGroupOffsetsSpec().topicPartitions(partitions));
      } else {
        LOG.warn("not recording consumer group {}: its {}", Printable.excerpt(group), problem);
      }
    }
    Map<String, Map<Integer, Long>> groups = new TreeMap<>();
    if (specs.isEmpty()) {
      return groups;
    }
    Map<String, Map<TopicPartition, OffsetAndMetadata>> offsets = KafkaClients.await(
        admin.listConsumerGroupOffsets(specs).all(), timeout, settings.bootstrapServers(),
        "read the consumer groups' committed offsets of topic", settings.topic());
    offsets.forEach((group, byPartition) -> {
      Map<Integer, Long> capped = new TreeMap<>();
      byPartition.forEach((tp, committed) -> {
        if (committed != null && tp.topic().equals(settings.topic()) && storedEnds.containsKey(tp.partition())) {
          capped.put(tp.partition(), Math.min(committed.offset(), storedEnds.get(tp.partition())));
        }
      });
      if (!capped.isEmpty()) {
        groups.put(group, capped);
      }
    });
    return groups;
  }
}
