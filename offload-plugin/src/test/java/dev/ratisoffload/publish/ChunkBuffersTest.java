package dev.ratisoffload.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The arrays of a publish's chunks: reused, bounded, and given back after the last reader of a chunk. */
class ChunkBuffersTest {

  @Test
  void anArrayGivenBackIsReusedForAnyChunkItFits() throws IOException {
    ChunkBuffers buffers = new ChunkBuffers(2);
    byte[] first = buffers.take(100);
    assertEquals(100, first.length);
    buffers.giveBack(first);
    assertSame(first, buffers.take(60));
  }

  @Test
  void anArrayTooSmallForTheNextChunkIsReplaced() throws IOException {
    ChunkBuffers buffers = new ChunkBuffers(2);
    byte[] small = buffers.take(10);
    buffers.giveBack(small);
    byte[] larger = buffers.take(20);
    assertNotSame(small, larger);
    assertEquals(20, larger.length);
  }

  @Test
  void aSharedArrayIsGivenBackOnlyByItsLastHolder() throws IOException {
    ChunkBuffers buffers = new ChunkBuffers(3);
    byte[] chunk = buffers.take(10);
    Runnable release = buffers.sharedBy(3, chunk);
    release.run();
    release.run();
    assertNotSame(chunk, buffers.take(10), "two of three holders are done: the array is still in use");
    release.run();
    assertSame(chunk, buffers.take(10));
  }

  @Test
  void aTakeBeyondTheBoundWaitsForAnArrayToComeBack() throws Exception {
    ChunkBuffers buffers = new ChunkBuffers(1);
    buffers.take(10);
    AtomicReference<Object> outcome = new AtomicReference<>();
    Thread taker = new Thread(() -> {
      try {
        outcome.set(buffers.take(10));
      } catch (IOException e) {
        outcome.set(e);
      }
    });
    taker.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (taker.getState() != Thread.State.WAITING && taker.isAlive() && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertTrue(taker.isAlive(), "the second take returned while the only array was in flight: " + outcome.get());
    taker.interrupt();
    taker.join();
    IOException interrupted = assertInstanceOf(IOException.class, outcome.get());
    assertInstanceOf(InterruptedException.class, interrupted.getCause());
  }
}
