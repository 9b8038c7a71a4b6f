package dev.ratisoffload.format;

/**
 * Sizes for content-defined chunking. A boundary falls where a rolling hash of the last bytes matches a
 * mask, so an insertion or deletion moves only the boundaries near it and the rest of the chunks keep
 * their hashes; {@code min} and {@code max} bound the size of every chunk but a file's last.
 *
 * @param min no boundary before this many bytes
 * @param average the expected chunk size; a power of two
 * @param max a boundary is forced here
 */
public record ChunkingPolicy(int min, int average, int max) {

  /** The largest chunk any policy may produce; readers refuse bigger ones. */
  public static final int LIMIT = 64 * 1024 * 1024;

  public ChunkingPolicy {
    if (Integer.bitCount(average) != 1 || average < 64) {
      throw new IllegalArgumentException("average chunk size " + average + " must be a power of two >= 64");
    }
    if (min < 1 || min > average || max < average || max > LIMIT) {
      throw new IllegalArgumentException("chunk sizes must satisfy 1 <= min <= average <= max <= "
          + LIMIT + ", got " + min + ", " + average + ", " + max);
    }
  }

  /** About 1 MiB chunks: a 1% change of a large snapshot costs about 1% of it. */
  public static ChunkingPolicy defaults() {
    return ofAverage(1024 * 1024);
  }

  /** min = average/4, max = average*4. */
  public static ChunkingPolicy ofAverage(int average) {
    return new ChunkingPolicy(Math.max(1, average / 4), average, average * 4);
  }
}
