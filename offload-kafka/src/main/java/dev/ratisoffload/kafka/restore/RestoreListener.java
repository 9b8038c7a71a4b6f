package dev.ratisoffload.kafka.restore;

import java.time.Duration;
import java.util.Map;

/** What a restore tells while it runs; called from the restore's threads. */
public interface RestoreListener {

  RestoreListener NONE = new RestoreListener() {};

  /** The backup is verified and the target accepted: {@code records} records will be sent (one-shot). */
  default void sending(long records) {}

  /** Another segment was handed to the producer; {@code sent} records so far, all partitions. */
  default void segmentSent(int partition, long sent) {}

  /** Follow mode: the partition continues at this target offset, after its last record was checked. */
  default void resumed(int partition, long targetOffset, long sourceOffset) {}

  /** Follow mode: the broker has not acknowledged what was sent for a while; the producer keeps at it. */
  default void waiting(String problem) {}

  /** Follow mode: the store or the broker failed; the follower tries again after {@code wait}. */
  default void retrying(String problem, Duration wait) {}

  /** A consumer group's offsets were committed on the target: by partition, where the group reads on. */
  default void groupCommitted(String group, Map<Integer, Long> offsets) {}
}
