package dev.ratisoffload.plugin;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/** Per group: one publish at a time, and the newest index known to be stored. */
final class GroupState {

  final ReentrantLock lock = new ReentrantLock();
  private long highWater = Long.MIN_VALUE;

  /** The newest published index; looked up in the store the first time (-1 if none). */
  long highWater(LongSupplier lookup) {
    if (highWater == Long.MIN_VALUE) {
      highWater = lookup.getAsLong();
    }
    return highWater;
  }

  void published(long index) {
    highWater = Math.max(highWater, index);
  }
}
