package dev.ratisoffload.primitives;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * Waiting for a task of the project's own pools: the task's exception comes out as it was thrown, not
 * wrapped, so a store error stays a store error for the caller (and its exit code); an interrupt is kept.
 */
public final class Futures {

  private Futures() {}

  /**
   * The task's result, for tasks that may fail with an {@link IOException}.
   *
   * @param doing what the task does, for the message of an interrupt ("reading chunks")
   */
  public static <T> T await(Future<T> future, String doing) throws IOException {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException interrupted = new InterruptedIOException("interrupted while " + doing);
      interrupted.initCause(e);
      throw interrupted;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw unchecked(e.getCause(), doing);
    }
  }

  /** The task's result, for tasks that fail only with unchecked exceptions. */
  public static <T> T join(Future<T> future, String doing) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while " + doing, e);
    } catch (ExecutionException e) {
      throw unchecked(e.getCause(), doing);
    }
  }

  private static RuntimeException unchecked(Throwable cause, String doing) {
    if (cause instanceof RuntimeException runtime) {
      return runtime;
    }
    if (cause instanceof Error error) {
      throw error;
    }
    return new IllegalStateException(doing + " failed: " + cause, cause);
  }
}
