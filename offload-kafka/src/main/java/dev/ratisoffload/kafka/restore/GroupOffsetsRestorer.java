package dev.ratisoffload.kafka.restore;

import dev.ratisoffload.kafka.KafkaClients;
import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import dev.ratisoffload.kafka.format.GroupOffsetsSnapshot;
import dev.ratisoffload.kafka.format.KafkaLayout.GroupOffsetsKey;
import dev.ratisoffload.kafka.format.KafkaLayout.OffsetMapKey;
import dev.ratisoffload.kafka.format.OffsetMap;
import dev.ratisoffload.kafka.format.OffsetMapCodec;
import dev.ratisoffload.kafka.read.GroupOffsetsReader;
import dev.ratisoffload.kafka.read.TopicIncarnation;
import dev.ratisoffload.primitives.Printable;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.ObjectStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongUnaryOperator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.UnknownMemberIdException;

/**
 * Brings the backed-up offsets of consumer groups to the target: chooses the newest snapshot at or
 * before the restore's cut, refuses groups with members on the target before anything is sent, and
 * once the records are in commits each group's offsets, translated into the target's offsets and
 * capped at its end. Also keeps the offset map of a renumbering restore in the store, so offsets can
 * be translated into that target later.
 */
final class GroupOffsetsRestorer implements AutoCloseable {

  private final RestoreSettings settings;
  private final ObjectStore store;
  private final GroupOffsetsReader reader;
  private final Clock clock;
  private final Admin admin;

  GroupOffsetsRestorer(RestoreSettings settings, ObjectStore store, Clock clock) {
    this.settings = settings;
    this.store = store;
    this.reader = new GroupOffsetsReader(store);
    this.clock = clock;
    this.admin = Admin.create(KafkaClients.adminProperties(settings.bootstrapServers(),
        "offload-kafka-restore-groups-" + settings.targetTopic(), settings.brokerTimeout(),
        settings.clientProperties()));
  }

  /** The groups to commit and their backed-up offsets, by partition: the next offset each group reads. */
  record Pending(GroupOffsetsKey snapshot, Map<String, Map<Integer, Long>> groups) {}

  /**
   * Chooses the groups to commit and proves none of them active on the target; nothing is written yet.
   *
   * @param written for a refusal: what the target holds ("Nothing was written")
   * @throws KafkaOffloadException when the backup holds no snapshot, no group matches, or a group is active
   */
  Pending prepare(TopicIncarnation incarnation, List<Integer> partitions, String written) {
    GroupOffsetsKey key = reader.newest(settings.cluster(), settings.topic(), incarnation.topicId(), settings.until())
        .orElseThrow(() -> new KafkaOffloadException(Kind.INCONSISTENT, "the backup of " + incarnation.describe()
            + " holds no consumer-group offsets" + settings.until().map(t -> " taken at or before " + t).orElse("")
            + " (a backup records them when it ends, or at --group-offsets-interval while following). " + written
            + ": restore without --consumer-groups, or with a later --until"));
    GroupOffsetsSnapshot snapshot = reader.read(key);
    Map<String, Map<Integer, Long>> chosen = new TreeMap<>();
    snapshot.groups().forEach((group, offsets) -> {
      if (settings.consumerGroups().orElseThrow().matches(group)) {
        Map<Integer, Long> restored = new TreeMap<>(offsets);
        restored.keySet().retainAll(partitions);
        if (!restored.isEmpty()) {
          chosen.put(group, restored);
        }
      }
    });
    if (chosen.isEmpty()) {
      throw new KafkaOffloadException(Kind.INVALID, "no consumer group of the snapshot taken at " + snapshot.takenAt()
          + " matches --consumer-groups " + settings.consumerGroups().orElseThrow() + " on the partitions restored;"
          + " it holds " + printable(snapshot.groups().keySet()) + ". " + written);
    }
    refuseActive(chosen.keySet(), written + ". Stop those consumers (or leave the groups out of --consumer-groups)"
        + " and run the same command again");
    return new Pending(key, chosen);
  }

  /**
   * Commits every pending group's offsets on the target, after proving again that none has members.
   *
   * @param translate per partition, a backed-up offset to the target's
   * @param ends per partition, the target's end after the restore: no offset is committed beyond it
   * @return what was committed, by group
   */
  Map<String, Map<Integer, Long>> commit(Pending pending, Map<Integer, LongUnaryOperator> translate,
      Map<Integer, Long> ends, RestoreListener listener) {
    Map<String, Map<Integer, Long>> targetOffsets = new TreeMap<>();
    pending.groups().forEach((group, offsets) -> {
      Map<Integer, Long> translated = new TreeMap<>();
      offsets.forEach((p, offset) -> {
        LongUnaryOperator map = translate.get(p);
        if (map != null && ends.containsKey(p)) {
          translated.put(p, Math.min(map.applyAsLong(offset), ends.get(p)));
        }
      });
      targetOffsets.put(group, translated);
    });
    refuseActive(pending.groups().keySet(), "The records are restored; no group's offsets were changed. Once they"
        + " are stopped, commit " + targetOffsets + " (group: partition=offset) on topic " + settings.targetTopic()
        + " with kafka-consumer-groups --reset-offsets --to-offset");
    Map<String, Map<Integer, Long>> committed = new TreeMap<>();
    for (Map.Entry<String, Map<Integer, Long>> group : targetOffsets.entrySet()) {
      Map<TopicPartition, OffsetAndMetadata> request = new TreeMap<>(java.util.Comparator.comparingInt(
          TopicPartition::partition));
      group.getValue().forEach((p, offset) -> request.put(new TopicPartition(settings.targetTopic(), p),
          new OffsetAndMetadata(offset)));
      String left = "The records are restored; the groups committed before it: " + printable(committed.keySet())
          + ". Commit the rest, once their consumers are stopped, with kafka-consumer-groups --reset-offsets"
          + " --to-offset (group: partition=offset): " + targetOffsets;
      try {
        await(admin.alterConsumerGroupOffsets(group.getKey(), request).all(), "commit the offsets of consumer group "
            + Printable.of(group.getKey()) + " on topic");
      } catch (KafkaOffloadException e) {
        if (e.getCause() instanceof UnknownMemberIdException || e.getCause() instanceof GroupNotEmptyException) {
          throw activeGroups(List.of(Printable.of(group.getKey())), left);
        }
        throw new KafkaOffloadException(e.kind(), "committing consumer group " + Printable.of(group.getKey())
            + " failed: " + e.getMessage() + ". " + left, e);
      }
      committed.put(group.getKey(), group.getValue());
      listener.groupCommitted(group.getKey(), group.getValue());
    }
    return committed;
  }

  /** Stores the map of a renumbering restore into the target topic; returns the target's id. */
  OffsetMap storeMap(TopicIncarnation incarnation, Map<Integer, OffsetMap.PartitionMap> partitions) {
    Uuid targetId = targetTopicId();
    Instant now = Instant.ofEpochMilli(clock.millis());
    OffsetMap map = new OffsetMap(OffsetMap.FORMAT_VERSION, settings.cluster(), settings.topic(),
        incarnation.topicId().toString(), settings.targetTopic(), targetId.toString(), now, partitions);
    OffsetMapKey key = new OffsetMapKey(settings.cluster(), settings.topic(), incarnation.topicId(), targetId,
        now.toEpochMilli());
    store.putIfAbsent(key.key(), Content.of(OffsetMapCodec.encode(map)));
    return map;
  }

  private Uuid targetTopicId() {
    return await(admin.describeTopics(List.of(settings.targetTopic())).topicNameValues().get(settings.targetTopic()),
        "describe topic").topicId();
  }

  private void refuseActive(Collection<String> groups, String kept) {
    Map<String, KafkaFuture<ConsumerGroupDescription>> described = admin.describeConsumerGroups(groups)
        .describedGroups();
    List<String> active = new ArrayList<>();
    for (Map.Entry<String, KafkaFuture<ConsumerGroupDescription>> group : described.entrySet()) {
      ConsumerGroupDescription d;
      try {
        d = await(group.getValue(), "describe consumer group " + Printable.of(group.getKey()) + " for topic");
      } catch (KafkaOffloadException e) {
        if (e.getCause() instanceof GroupIdNotFoundException) {
          continue; // a cluster that never saw the group (a new one, a standby): nobody to move unseen
        }
        throw e;
      }
      if (!d.members().isEmpty()) {
        active.add(Printable.of(group.getKey()) + " (" + d.members().size() + " members)");
      }
    }
    if (!active.isEmpty()) {
      throw activeGroups(active, kept);
    }
  }

  private KafkaOffloadException activeGroups(List<String> active, String kept) {
    return new KafkaOffloadException(Kind.REFUSED, "consumer groups " + String.join(", ", active) + " have members"
        + " on " + settings.bootstrapServers() + ": committing offsets under running consumers would move them"
        + " unseen. " + kept);
  }

  private <T> T await(KafkaFuture<T> future, String what) {
    return KafkaClients.await(future, settings.brokerTimeout(), settings.bootstrapServers(), what,
        settings.targetTopic());
  }

  private static String printable(Collection<String> groups) {
    return groups.isEmpty() ? "none" : groups.stream().map(Printable::of).toList().toString();
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(2));
  }
}
