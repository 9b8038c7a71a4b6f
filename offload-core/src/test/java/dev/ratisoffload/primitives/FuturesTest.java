package dev.ratisoffload.primitives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class FuturesTest {

  private static Future<String> failedWith(Throwable cause) {
    return CompletableFuture.failedFuture(cause);
  }

  @Test
  void aTaskFailureComesOutAsItWasThrown() {
    IllegalArgumentException runtime = new IllegalArgumentException("bad");
    assertSame(runtime, assertThrows(IllegalArgumentException.class, () -> Futures.join(failedWith(runtime), "x")));
    assertSame(runtime, assertThrows(IllegalArgumentException.class, () -> Futures.await(failedWith(runtime), "x")));
    IOException io = new IOException("disk");
    assertSame(io, assertThrows(IOException.class, () -> Futures.await(failedWith(io), "x")));
  }

  @Test
  void aCheckedFailureAnUncheckedWaitCannotThrowIsWrappedWithItsCause() {
    IOException io = new IOException("disk");
    IllegalStateException wrapped = assertThrows(IllegalStateException.class,
        () -> Futures.join(failedWith(io), "reading manifests"));
    assertSame(io, wrapped.getCause());
    assertTrue(wrapped.getMessage().startsWith("reading manifests failed"), wrapped.getMessage());
  }

  @Test
  void anInterruptIsReportedAndKept() {
    CompletableFuture<String> never = new CompletableFuture<>();
    Thread.currentThread().interrupt();
    InterruptedIOException io = assertThrows(InterruptedIOException.class, () -> Futures.await(never, "hashing"));
    assertEquals("interrupted while hashing", io.getMessage());
    assertTrue(Thread.interrupted(), "the interrupt is kept (and cleared here)");
    Thread.currentThread().interrupt();
    assertThrows(IllegalStateException.class, () -> Futures.join(never, "verifying"));
    assertTrue(Thread.interrupted(), "the interrupt is kept (and cleared here)");
  }

  @Test
  void aResultIsReturned() throws IOException {
    assertEquals("v", Futures.await(CompletableFuture.completedFuture("v"), "x"));
    assertEquals("v", Futures.join(CompletableFuture.completedFuture("v"), "x"));
  }
}
