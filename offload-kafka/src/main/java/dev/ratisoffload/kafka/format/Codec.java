package dev.ratisoffload.kafka.format;

import com.github.luben.zstd.util.Native;

/** How a segment's body is stored (header byte 12). */
public enum Codec {
  /** The body as is; for tests and incompressible data. */
  NONE(0, 0),
  /** A zlib stream (RFC 1950: DEFLATE with an Adler-32 trailer), as java.util.zip writes it. */
  DEFLATE(1, 1),
  /**
   * Zstandard frames (RFC 8878), one after the other, that decode to the body: the writer makes one per
   * 256 KiB of body, with the zstd library that kafka-clients also uses; a reader takes any number.
   */
  ZSTD(2, 1);

  private final int code;
  private final int defaultLevel;

  Codec(int code, int defaultLevel) {
    this.code = code;
    this.defaultLevel = defaultLevel;
  }

  public int code() {
    return code;
  }

  /** The compression level new segments are written at: the fastest, as the broker sets the pace. */
  int defaultLevel() {
    return defaultLevel;
  }

  /**
   * The codec new segments are written with: Zstandard, which compresses about eight times as fast as
   * zlib at a better ratio; zlib where the zstd native library cannot be loaded on this platform.
   */
  static Codec forWriting() {
    return ZstdLibrary.AVAILABLE ? ZSTD : DEFLATE;
  }

  /** Fails with an explanation when this codec cannot be used on this machine. */
  void requireAvailable(String segment) {
    if (this == ZSTD && !ZstdLibrary.AVAILABLE) {
      throw new IllegalStateException("segment " + segment + " is compressed with zstd, but the zstd native library"
          + " (zstd-jni) cannot be loaded on this platform (" + System.getProperty("os.name") + " "
          + System.getProperty("os.arch") + "): " + ZstdLibrary.PROBLEM);
    }
  }

  static Codec ofCode(int code) {
    for (Codec codec : values()) {
      if (codec.code == code) {
        return codec;
      }
    }
    return null;
  }

  /** Loads zstd-jni's native library once, on first use. */
  private static final class ZstdLibrary {
    private static final String PROBLEM = loadProblem();
    private static final boolean AVAILABLE = PROBLEM == null;

    private static String loadProblem() {
      try {
        Native.load();
        return null;
      } catch (LinkageError | RuntimeException e) {
        return e.toString();
      }
    }
  }
}
