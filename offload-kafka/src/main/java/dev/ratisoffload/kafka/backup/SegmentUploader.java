package dev.ratisoffload.kafka.backup;

import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.format.SegmentWriter.EncodedSegment;
import dev.ratisoffload.store.ObjectConflictException;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreUnavailableException;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores segments with put-if-absent, retrying while the store is unavailable, and detects a second
 * backup writing the same partition: after each put it lists the segments that start at the same
 * offset, and there must be exactly one. (Two writers resuming from the same chain start their next
 * segments at the same offset; whichever stores second sees both.)
 */
final class SegmentUploader {

  private static final Logger LOG = LoggerFactory.getLogger(SegmentUploader.class);

  private final ObjectStore store;
  private final Duration retryFor;

  SegmentUploader(ObjectStore store, Duration retryFor) {
    this.store = store;
    this.retryFor = retryFor;
  }

  void upload(SegmentKey key, EncodedSegment segment) {
    String objectKey = key.key();
    long deadline = System.nanoTime() + retryFor.toNanos();
    long backoffMillis = 200;
    while (true) {
      try {
        store.putIfAbsent(objectKey, segment.content());
        break;
      } catch (ObjectConflictException e) {
        throw anotherWriter(key, "a different segment with the same range was already stored at " + objectKey);
      } catch (StoreUnavailableException e) {
        if (System.nanoTime() - deadline > 0) {
          throw e;
        }
        LOG.warn("store {} unavailable while writing {}; retrying in {} ms: {}", store.describe(), objectKey,
            backoffMillis, e.getMessage());
        sleep(backoffMillis);
        backoffMillis = Math.min(backoffMillis * 2, 5000);
      }
    }
    List<ObjectInfo> sameStart = store.list(KafkaLayout.segmentsStartingAt(key.cluster(), key.topic(),
        key.topicId(), key.partition(), key.firstOffset()));
    if (sameStart.size() > 1) {
      throw anotherWriter(key, "segments " + sameStart.stream().map(ObjectInfo::key).toList()
          + " all start at offset " + key.firstOffset());
    }
  }

  private KafkaOffloadException anotherWriter(SegmentKey key, String what) {
    return new KafkaOffloadException(Kind.REFUSED, "another backup is writing " + key.topic() + "/"
        + key.partition() + " into the same store: " + what + ". Stop all but one backup of the topic, then run"
        + " `offload kafka verify`; overlapping segments hold the same records, so the newer of two overlapping"
        + " segments can be deleted");
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaOffloadException(Kind.UNAVAILABLE, "interrupted while waiting for the store", e);
    }
  }
}
