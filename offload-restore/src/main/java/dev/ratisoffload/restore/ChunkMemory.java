package dev.ratisoffload.restore;

import dev.ratisoffload.format.Manifest;

/**
 * The heap a restore or verify may fill with chunks, and so how many chunk reads it keeps in flight: a
 * chunk is held whole in memory, and a generation written with large chunks (up to 64 MiB each) would
 * otherwise run out of heap half-way, as an internal error. With {@code r} reads in flight a copy holds at
 * most {@code 2r + 2} chunks ({@link ChunkPipeline}); {@link #RESERVE} of the heap is kept for everything
 * else. When not even one read fits, the copy is refused before anything is written, naming the heap to
 * give.
 *
 * @param heapBytes the most heap this JVM may use ({@link Runtime#maxMemory})
 */
record ChunkMemory(long heapBytes) {

  /** Heap kept for everything but chunks: the SDK, manifests, the command line. */
  public static final long RESERVE = 64L * 1024 * 1024;
  private static final long MIB = 1024 * 1024;

  /** The budget of this JVM. */
  public static ChunkMemory ofThisJvm() {
    return new ChunkMemory(Runtime.getRuntime().maxMemory());
  }

  /** Chunks held at once with {@code reads} in flight: read ahead, being written, not yet hashed, one spare. */
  static long chunksHeld(int reads) {
    return 2L * reads + 2;
  }

  /** The heap that {@code reads} reads in flight of chunks up to {@code largestChunk} bytes need. */
  public static long heapNeeded(long largestChunk, int reads) {
    return RESERVE + chunksHeld(reads) * largestChunk;
  }

  /**
   * How many reads of the generation's chunks fit, at most {@code atMost} (full speed).
   *
   * @throws HeapTooSmallException when not even one fits; nothing was read or written yet
   */
  public int readsInFlight(Manifest manifest, int atMost) {
    long largest = largestChunk(manifest);
    int reads = atMost;
    while (reads > 0 && heapNeeded(largest, reads) > heapBytes) {
      reads--;
    }
    if (reads == 0) {
      long minimum = heapNeeded(largest, 1);
      throw new HeapTooSmallException("the largest chunk of " + manifest.cluster() + "/" + manifest.group()
          + " index " + manifest.index() + " is " + mib(largest) + " MiB, and copying it needs at least "
          + mib(minimum) + " MiB of heap (" + mib(heapNeeded(largest, atMost)) + " MiB at full speed), but"
          + " this JVM may use " + mib(heapBytes) + " MiB; nothing was written. Run it again with more heap,"
          + " e.g. OFFLOAD_JAVA_OPTS=-Xmx" + suggestedXmx(minimum) + "m scripts/offload ... (java -Xmx"
          + suggestedXmx(minimum) + "m -jar offload.jar ...)");
    }
    return reads;
  }

  static long largestChunk(Manifest manifest) {
    return manifest.files().stream().flatMap(f -> f.chunks().stream())
        .mapToLong(Manifest.ChunkRef::size).max().orElse(0);
  }

  /** An -Xmx for a heap of at least {@code bytes}: a JVM may use somewhat less than its -Xmx. */
  private static long suggestedXmx(long bytes) {
    long withMargin = bytes + bytes / 8;
    return (withMargin + 64 * MIB - 1) / (64 * MIB) * 64;
  }

  private static long mib(long bytes) {
    return (bytes + MIB - 1) / MIB;
  }
}
