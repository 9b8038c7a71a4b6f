package dev.ratisoffload.restore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.format.ManifestCodec;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.DirectoryObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The heap budget of a restore: the figures docs/cli.md states, and a restore held to a small budget. */
class ChunkMemoryTest {

  static final long MIB = 1024 * 1024;
  static final String CLUSTER = "prod-1";
  static final String GROUP = "77777777-7777-4777-8777-777777777777";

  @TempDir
  Path tmp;

  /** docs/cli.md: 64 MiB plus 2 x reads + 2 chunks; chunk-size S gives chunks up to 4 x S. */
  @Test
  void theHeapEachChunkSizeNeedsIsWhatTheDocsSay() {
    assertEquals(80 * MIB, ChunkMemory.heapNeeded(4 * MIB, 1), "chunk-size 1MB, one read");
    assertEquals(136 * MIB, ChunkMemory.heapNeeded(4 * MIB, 8), "chunk-size 1MB, full speed");
    assertEquals(320 * MIB, ChunkMemory.heapNeeded(64 * MIB, 1), "chunk-size 16MB, one read");
    assertEquals(1216 * MIB, ChunkMemory.heapNeeded(64 * MIB, 8), "chunk-size 16MB, full speed");
  }

  @Test
  void readsInFlightShrinkWithTheHeapAndNeverBelowOne() {
    Manifest m = manifest(64 * MIB);
    assertEquals(8, new ChunkMemory(4096 * MIB).readsInFlight(m, 8));
    assertEquals(3, new ChunkMemory(576 * MIB).readsInFlight(m, 8), "64 + 8 x 64 = 576");
    assertEquals(2, new ChunkMemory(575 * MIB).readsInFlight(m, 8));
    assertEquals(1, new ChunkMemory(320 * MIB).readsInFlight(m, 8));
    HeapTooSmallException e = assertThrows(HeapTooSmallException.class,
        () -> new ChunkMemory(319 * MIB).readsInFlight(m, 8));
    assertTrue(e.getMessage().contains("at least 320 MiB") && e.getMessage().contains("OFFLOAD_JAVA_OPTS=-Xmx384m"),
        e.getMessage());
  }

  @Test
  void aRestoreWithinItsBudgetWritesTheBytesAndOneBeyondItWritesNothing() throws Exception {
    DirectoryObjectStore store = new DirectoryObjectStore(Files.createDirectories(tmp.resolve("store")));
    List<byte[]> chunks = List.of(Generations.random(300_000, 1), Generations.random(300_000, 2),
        Generations.random(300_000, 3), Generations.random(123, 4));
    Manifest m = Generations.putChunks(store, CLUSTER, GROUP, "n0", Map.of("sm/snapshot.1_5", chunks));
    store.putIfAbsent(Layout.GenerationId.of(m).manifestKey(), Content.of(ManifestCodec.encode(m)));
    long oneRead = ChunkMemory.heapNeeded(300_000, 1);

    Path refused = tmp.resolve("refused");
    ClusterRestorer tooSmall = new ClusterRestorer(store, new ChunkMemory(oneRead - 1));
    assertThrows(HeapTooSmallException.class, () -> tooSmall.restore(tooSmall.plan(request(refused)),
        TransferListener.NONE));
    assertFalse(Files.exists(refused), "nothing was written");

    Path restored = tmp.resolve("restored");
    ClusterRestorer justEnough = new ClusterRestorer(store, new ChunkMemory(oneRead));
    justEnough.restore(justEnough.plan(request(restored)), TransferListener.NONE);
    byte[] file = Files.readAllBytes(restored.resolve(GROUP).resolve("sm/snapshot.1_5"));
    int at = 0;
    for (byte[] chunk : chunks) {
      assertTrue(java.util.Arrays.equals(chunk, 0, chunk.length, file, at, at + chunk.length));
      at += chunk.length;
    }
    assertEquals(at, file.length);
  }

  private static RestoreRequest request(Path dataDir) {
    return new RestoreRequest(CLUSTER, List.of(), new GenerationChoice.Newest(), Map.of(), dataDir);
  }

  /** A manifest whose largest chunk has {@code largest} bytes; nothing stored. */
  private static Manifest manifest(long largest) {
    String sha = "a".repeat(64);
    return new Manifest(Manifest.FORMAT_VERSION, CLUSTER, GROUP, 1, 5, Generations.PEERS,
        new Manifest.Publisher("n0", 1), java.time.Instant.EPOCH, "x", List.of(new Manifest.FileEntry("sm/s", largest,
            sha, null, List.of(new Manifest.ChunkRef(sha, (int) largest)))));
  }
}
