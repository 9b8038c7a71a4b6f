package dev.ratisoffload.kafka.read;

import dev.ratisoffload.kafka.format.GroupOffsetsCodec;
import dev.ratisoffload.kafka.format.GroupOffsetsSnapshot;
import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.KafkaLayout.GroupOffsetsKey;
import dev.ratisoffload.kafka.format.KafkaLayout.OffsetMapKey;
import dev.ratisoffload.kafka.format.OffsetMap;
import dev.ratisoffload.kafka.format.OffsetMapCodec;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectNotFoundException;
import dev.ratisoffload.store.ObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * Reads the consumer-group offset snapshots of a topic incarnation and the offset maps restores wrote
 * from it. Both are listed by their own prefix, and their keys sort by time, so the newest is last.
 */
public final class GroupOffsetsReader {

  private final ObjectStore store;

  public GroupOffsetsReader(ObjectStore store) {
    this.store = store;
  }

  /** Every snapshot of the incarnation, oldest first. */
  public List<GroupOffsetsKey> snapshots(String cluster, String topic, Uuid topicId) {
    return store.list(KafkaLayout.groupOffsetsPrefix(cluster, topic, topicId)).stream().map(ObjectInfo::key)
        .map(KafkaLayout::parseGroupOffsetsKey).flatMap(Optional::stream).toList();
  }

  /** The newest snapshot taken at or before {@code cut} (the newest of all without one). */
  public Optional<GroupOffsetsKey> newest(String cluster, String topic, Uuid topicId, Optional<Instant> cut) {
    List<GroupOffsetsKey> all = snapshots(cluster, topic, topicId);
    for (int i = all.size() - 1; i >= 0; i--) {
      if (cut.isEmpty() || all.get(i).takenAtMillis() <= cut.get().toEpochMilli()) {
        return Optional.of(all.get(i));
      }
    }
    return Optional.empty();
  }

  public GroupOffsetsSnapshot read(GroupOffsetsKey key) {
    return GroupOffsetsCodec.decode(readBytes(key.key(), GroupOffsetsCodec.MAX_BYTES), key);
  }

  /** The newest offset map from the incarnation into the target topic with this id, if a restore wrote one. */
  public Optional<OffsetMap> newestMap(String cluster, String topic, Uuid topicId, Uuid targetTopicId) {
    List<OffsetMapKey> keys = store.list(KafkaLayout.offsetMapPrefix(cluster, topic, topicId, targetTopicId))
        .stream().map(ObjectInfo::key).map(KafkaLayout::parseOffsetMapKey).flatMap(Optional::stream).toList();
    if (keys.isEmpty()) {
      return Optional.empty();
    }
    OffsetMapKey newest = keys.get(keys.size() - 1);
    return Optional.of(OffsetMapCodec.decode(readBytes(newest.key(), OffsetMapCodec.MAX_BYTES), newest));
  }

  /** Reads every snapshot and offset map of the incarnation; what is wrong with each, or nothing. */
  public List<String> verifyAll(TopicIncarnation incarnation) {
    List<String> problems = new ArrayList<>();
    for (GroupOffsetsKey key : snapshots(incarnation.cluster(), incarnation.topic(), incarnation.topicId())) {
      try {
        read(key);
      } catch (IntegrityException e) {
        problems.add(e.getMessage());
      }
    }
    String maps = KafkaLayout.offsetMapsPrefix(incarnation.cluster(), incarnation.topic(), incarnation.topicId());
    for (OffsetMapKey key : store.list(maps).stream().map(ObjectInfo::key).map(KafkaLayout::parseOffsetMapKey)
        .flatMap(Optional::stream).toList()) {
      try {
        OffsetMapCodec.decode(readBytes(key.key(), OffsetMapCodec.MAX_BYTES), key);
      } catch (IntegrityException e) {
        problems.add(e.getMessage());
      }
    }
    return problems;
  }

  private byte[] readBytes(String key, int maxBytes) {
    try (InputStream in = store.get(key)) {
      return in.readNBytes(maxBytes + 1);
    } catch (ObjectNotFoundException e) {
      throw new IntegrityException(key + " was listed but is gone");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + key + " from " + store.describe(), e);
    }
  }
}
