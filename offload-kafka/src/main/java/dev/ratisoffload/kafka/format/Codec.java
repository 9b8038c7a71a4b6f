package dev.ratisoffload.kafka.format;

/** How a segment's body is stored (header byte 12). */
public enum Codec {
  /** The body as is; for tests and incompressible data. */
  NONE(0),
  /** A zlib stream (RFC 1950: DEFLATE with an Adler-32 trailer), as java.util.zip writes it. */
  DEFLATE(1);

  private final int code;

  Codec(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  static Codec ofCode(int code) {
    for (Codec codec : values()) {
      if (codec.code == code) {
        return codec;
      }
    }
    return null;
  }
}
