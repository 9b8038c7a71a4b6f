package dev.ratisoffload.publish;

import java.io.IOException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The arrays that hold one publish's chunks while they are digested and uploaded, and the bound on
 * chunks in memory. An array is reused once its chunk is done with, so a publish allocates a few arrays
 * instead of one per chunk (chunks of a quarter to four megabytes are large objects for the garbage
 * collector).
 */
final class ChunkBuffers {

  private final Semaphore inFlight;
  private final ConcurrentLinkedQueue<byte[]> free = new ConcurrentLinkedQueue<>();

  /** @param maxInFlight chunks taken but not yet given back; takers wait beyond it */
  ChunkBuffers(int maxInFlight) {
    this.inFlight = new Semaphore(maxInFlight);
  }

  /** An array of at least {@code size} bytes, once fewer than the bound are in flight. */
  byte[] take(int size) throws IOException {
    try {
      inFlight.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while uploading", e);
    }
    byte[] buffer = free.poll();
    return buffer != null && buffer.length >= size ? buffer : new byte[size];
  }

  /** Gives back an array whose chunk is done with, and its place in flight. */
  void giveBack(byte[] buffer) {
    free.offer(buffer);
    inFlight.release();
  }

  /** Gives {@code buffer} back once it has been run {@code holders} times: by each part that reads the chunk. */
  Runnable sharedBy(int holders, byte[] buffer) {
    AtomicInteger left = new AtomicInteger(holders);
    return () -> {
      if (left.decrementAndGet() == 0) {
        giveBack(buffer);
      }
    };
  }
}
