package dev.ratisoffload.kafka.restore;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How many bytes of decoded segment bodies the verify pass may keep in memory for the send pass, shared
 * by every partition: a body kept is not downloaded, hashed or decompressed again; a segment that does
 * not fit is streamed from the store a second time (and its SHA-256 compared with the one the verify
 * pass read).
 */
final class KeptSegments {

  /** At most this much, and at most a quarter of the heap. */
  static final long DEFAULT_BYTES = 256L * 1024 * 1024;

  private final AtomicLong left;

  KeptSegments(long bytes) {
    this.left = new AtomicLong(bytes);
  }

  static KeptSegments forThisHeap() {
    return new KeptSegments(Math.min(DEFAULT_BYTES, Runtime.getRuntime().maxMemory() / 4));
  }

  /** Takes {@code bytes} from what is left, if that much is left. */
  boolean tryKeep(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("cannot keep " + bytes + " bytes");
    }
    return left.getAndUpdate(l -> l >= bytes ? l - bytes : l) >= bytes;
  }

  /** Gives back what a body no longer kept took. */
  void release(long bytes) {
    left.addAndGet(bytes);
  }
}
