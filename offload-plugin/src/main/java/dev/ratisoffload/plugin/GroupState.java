package dev.ratisoffload.plugin;

import dev.ratisoffload.store.ObjectInfo;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Per group: one publish at a time, the newest index the store holds, the creation time of the newest
 * generation last seen there, and the state of its healing. A scrub runs beside the group's passes, so
 * every method is synchronized.
 */
final class GroupState {

  final ReentrantLock lock = new ReentrantLock();
  /** True while a scrub of the group runs (on the scrub thread, not under {@link #lock}). */
  final AtomicBoolean scrubbing = new AtomicBoolean();
  private long highWater = Long.MIN_VALUE;
  private ObjectInfo newest;
  private Instant newestCreatedAt;
  /** The index of the newest generation, which its latest verification found damaged; -1 if none. */
  private long healIndex = -1;
  /** An index this peer tried to heal and could not (its snapshot differs from the stored generation). */
  private long unhealable = -1;
  private boolean scrubNow;

  /**
   * The generation's creation time, read from its manifest only when the newest manifest object changed
   * (another key, or the same key written again after it was deleted).
   */
  synchronized Instant createdAt(ObjectInfo manifest, Supplier<Instant> read) {
    if (!manifest.equals(newest)) {
      newestCreatedAt = read.get();
      newest = manifest;
    }
    return newestCreatedAt;
  }

  /** The creation time of the newest generation last read; null before any. */
  synchronized Instant newestCreatedAt() {
    return newestCreatedAt;
  }

  /**
   * The newest index the store holds; looked up in the store the first time (-1 if none), then as each
   * pass saw it ({@link #stored}).
   */
  synchronized long highWater(LongSupplier lookup) {
    if (highWater == Long.MIN_VALUE) {
      highWater = lookup.getAsLong();
    }
    return highWater;
  }

  /**
   * What a listing of the store showed: the newest stored index (-1 for none) and whether its latest
   * verification found it damaged. The index replaces what this peer remembers publishing, so a
   * generation deleted from the store is published again by the next pass instead of being skipped as
   * unchanged; a damaged newest generation is published again (healed) by this group's leader, whichever
   * peer scrubbed it and whenever.
   */
  synchronized void stored(long newestIndex, boolean newestDamaged) {
    highWater = newestIndex;
    if (newestIndex < 0) {
      newest = null; // a manifest written again at the same key (and second) is then read anew
      newestCreatedAt = null;
    }
    healIndex = newestDamaged && newestIndex != unhealable ? newestIndex : -1;
  }

  synchronized void published(long index) {
    highWater = Math.max(highWater, index);
    if (index >= healIndex && healIndex >= 0) {
      healIndex = -1;
      scrubNow = true; // verify the healed (or newer) generation at once
    }
  }

  /** The index being healed, or -1. */
  synchronized long healing() {
    return healIndex;
  }

  /** This peer cannot heal the generation at this index: it stops trying until another one is newest. */
  synchronized void cannotHeal(long index) {
    unhealable = index;
    if (healIndex == index) {
      healIndex = -1;
    }
  }

  /** True when a snapshot at this index must be published though it is not newer than the stored one. */
  synchronized boolean mustHeal(long index) {
    return index == healIndex;
  }

  /** True once after a publish healed a damaged generation: the next scrub check is due at once. */
  synchronized boolean takeScrubNow() {
    boolean now = scrubNow;
    scrubNow = false;
    return now;
  }
}
