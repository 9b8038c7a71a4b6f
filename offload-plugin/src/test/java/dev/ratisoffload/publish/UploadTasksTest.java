package dev.ratisoffload.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

/** How an upload that fails or is refused ends a publish: a failure while the fence is open, else a stop. */
class UploadTasksTest {

  private static final Executor REFUSING = upload -> {
    throw new RejectedExecutionException("the upload executor is shut down");
  };
  private static final IllegalStateException STORE_DOWN = new IllegalStateException("store down");

  private static FutureTask<String> failing() {
    return new FutureTask<>(() -> {
      throw STORE_DOWN;
    });
  }

  @Test
  void aFailedUploadFailsThePublishAtTheNextStart() {
    UploadTasks tasks = new UploadTasks(Runnable::run, () -> null);
    assertSame(STORE_DOWN, assertThrows(IllegalStateException.class, () -> tasks.start(failing())));
    assertNull(tasks.stopped());
  }

  @Test
  void aFailedUploadOnceTheFenceClosedStopsThePublish() throws IOException {
    UploadTasks tasks = new UploadTasks(Runnable::run, () -> SkipReason.LEADERSHIP_LOST);
    tasks.start(failing());
    assertEquals(SkipReason.LEADERSHIP_LOST, tasks.stopped());
  }

  @Test
  void aRefusedUploadWhileTheFenceIsOpenFailsThePublish() {
    UploadTasks tasks = new UploadTasks(REFUSING, () -> null);
    assertThrows(RejectedExecutionException.class, () -> tasks.start(new FutureTask<>(() -> "sha")));
  }

  @Test
  void aRefusedUploadOnceTheOffloadClosedStopsThePublish() throws IOException {
    UploadTasks tasks = new UploadTasks(REFUSING, () -> SkipReason.CLOSED);
    tasks.start(new FutureTask<>(() -> "sha"));
    assertEquals(SkipReason.CLOSED, tasks.stopped());
    tasks.awaitAll();
  }

  @Test
  void aClosedFenceIsRecordedAsTheStop() {
    UploadTasks tasks = new UploadTasks(Runnable::run, () -> SkipReason.NOT_LEADER);
    assertEquals(true, tasks.fenceClosed());
    assertEquals(SkipReason.NOT_LEADER, tasks.stopped());
  }
}
