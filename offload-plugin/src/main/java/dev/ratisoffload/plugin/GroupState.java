package dev.ratisoffload.plugin;

import dev.ratisoffload.format.Layout.GenerationId;
import java.time.Instant;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Per group: one publish at a time, the newest index known to be stored, and the creation time of the
 * newest generation last seen in the store.
 */
final class GroupState {

  final ReentrantLock lock = new ReentrantLock();
  private long highWater = Long.MIN_VALUE;
  private GenerationId newest;
  private Instant newestCreatedAt;
  /** The index of a generation a scrub found damaged, to publish again though it is stored; -1 if none. */
  private long healIndex = -1;
  private boolean scrubNow;

  /** The generation's creation time, read from its manifest only when the newest generation changed. */
  Instant createdAt(GenerationId generation, Supplier<Instant> read) {
    if (!generation.equals(newest)) {
      newestCreatedAt = read.get();
      newest = generation;
    }
    return newestCreatedAt;
  }

  /**
   * The newest index the store holds; looked up in the store the first time (-1 if none), then as each
   * pass saw it ({@link #stored}).
   */
  long highWater(LongSupplier lookup) {
    if (highWater == Long.MIN_VALUE) {
      highWater = lookup.getAsLong();
    }
    return highWater;
  }

  /**
   * What the pass's listing of the store showed: the newest stored index (-1 for none). It replaces what
   * this peer remembers publishing, so a generation deleted from the store (its manifest removed by hand
   * or by a tool) is published again by the next pass instead of being skipped as unchanged.
   */
  void stored(long newestIndex) {
    highWater = newestIndex;
  }

  void published(long index) {
    highWater = Math.max(highWater, index);
    if (index >= healIndex && healIndex >= 0) {
      healIndex = -1;
      scrubNow = true; // verify the healed (or newer) generation in this same pass
    }
  }

  /** Asks the next pass to publish the generation at this index again, though it is stored. */
  void heal(long index) {
    healIndex = index;
  }

  /** True when a snapshot at this index must be published though it is not newer than the stored one. */
  boolean mustHeal(long index) {
    return index == healIndex;
  }

  /** True once after a publish healed a damaged generation: the next scrub check is due at once. */
  boolean takeScrubNow() {
    boolean now = scrubNow;
    scrubNow = false;
    return now;
  }
}
