package dev.ratisoffload.publish;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * The chunk uploads of one publish and how they end it: the first upload that fails fails the publish
 * without waiting for the rest, while a fence that closes, or an offload that closes and so stops its
 * uploads (cancelled, refused, or interrupted mid-request), stops it: a skip rather than a failure, once
 * the uploads still running have ended. Used by the thread that reads the files; the uploads only
 * {@link #fenceClosed check the fence}.
 */
final class UploadTasks {

  private final Executor uploads;
  private final Fence fence;
  private final List<Future<?>> pending = new ArrayList<>();
  private volatile SkipReason stopped;

  /** @param uploads runs the uploads; its parallelism is the upload parallelism */
  UploadTasks(Executor uploads, Fence fence) {
    this.uploads = uploads;
    this.fence = fence;
  }

  /** Why the publish stopped; null while it may continue. */
  SkipReason stopped() {
    return stopped;
  }

  /** Whether the fence has closed, which stops the publish. */
  boolean fenceClosed() {
    SkipReason stop = fence.check();
    if (stop != null) {
      stopped = stop;
    }
    return stop != null;
  }

  /** Starts the upload, and surfaces the first failed upload without waiting for the rest. */
  void start(RunnableFuture<?> upload) throws IOException {
    pending.add(upload);
    try {
      uploads.execute(upload);
    } catch (RejectedExecutionException e) {
      upload.cancel(false);
      if (!stopForClose()) {
        throw e;
      }
      return;
    } catch (RuntimeException e) {
      upload.cancel(false);
      throw e;
    }
    for (Future<?> future : pending) {
      if (future.isDone()) {
        get(future);
      }
    }
    pending.removeIf(Future::isDone);
  }

  /** Waits for every upload; throws the first failure, unless the publish has been stopped. */
  void awaitAll() throws IOException {
    for (Future<?> future : pending) {
      get(future);
    }
    pending.clear();
  }

  /** Lets every upload end, ignoring failures, so none outlives the publish. */
  void awaitQuietly() {
    for (Future<?> future : pending) {
      try {
        future.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (ExecutionException | CancellationException ignored) {
        // the first failure is the one reported
      }
    }
  }

  private void get(Future<?> future) throws IOException {
    try {
      future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while uploading", e);
    } catch (CancellationException e) {
      if (!stopForClose()) {
        throw new IOException("an upload was cancelled while the publish was not stopped", e);
      }
    } catch (ExecutionException e) {
      if (stopForClose()) {
        return; // failed because the offload closed (an interrupted request): a stop, not a store error
      }
      awaitQuietly();
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IOException(e.getCause());
    }
  }

  /**
   * Stops the publish as a closed fence stops it, once the other uploads have ended, when the fence
   * has closed; false when it is still open (then it is not a close, and the caller reports an error).
   */
  private boolean stopForClose() {
    SkipReason stop = fence.check();
    if (stop == null) {
      return false;
    }
    awaitQuietly();
    stopped = stop;
    return true;
  }
}
