package dev.ratisoffload.plugin;

import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * Makes "closed" a clean cut for manifest writes: a write runs while the gate is open, and
 * {@link #close()} returns only when no write is running, after which every check sees it closed.
 */
final class ShutdownGate {

  private final ReadWriteLock lock = new ReentrantReadWriteLock();
  private volatile boolean closed;

  boolean isClosed() {
    return closed;
  }

  /** Runs a check-and-write that must not overlap {@link #close()}. */
  <T> T whileOpen(Supplier<T> checkAndWrite) {
    lock.readLock().lock();
    try {
      return checkAndWrite.get();
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Closes the gate and waits for a write in progress. */
  void close() {
    closed = true;
    lock.writeLock().lock();
    lock.writeLock().unlock();
  }
}
