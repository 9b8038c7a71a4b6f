package dev.ratisoffload.kafka.format;

import dev.ratisoffload.primitives.Hashes;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * The fixed-size header that starts every segment object (see docs/design.md, "Segment format"):
 * what the segment covers, how its body is stored, its predecessor's SHA-256 and its own.
 *
 * <p>{@code sha256} covers every byte of the object except itself: header bytes 0-123 and the
 * stored body. {@code previousSha256} is null for the first segment of a chain.
 */
public record SegmentHeader(
    Codec codec,
    Uuid topicId,
    int partition,
    long firstOffset,
    long lastOffset,
    long recordCount,
    long minTimestamp,
    long maxTimestamp,
    long decodedBodyLength,
    long storedBodyLength,
    String previousSha256,
    String sha256) {

  /** "OFKSEG\r\n": the CR LF catches a copy that rewrote line endings. */
  static final byte[] MAGIC = {'O', 'F', 'K', 'S', 'E', 'G', '\r', '\n'};
  public static final int FORMAT_VERSION = 1;
  /** Bytes before the body in format 1. */
  public static final int LENGTH = 156;
  /** Where the segment's own SHA-256 starts; the bytes before it are hashed with the body. */
  static final int SHA_OFFSET = 124;
  private static final byte[] NO_PREVIOUS = new byte[32];

  public SegmentHeader {
    Objects.requireNonNull(codec, "codec");
    Objects.requireNonNull(topicId, "topic id");
    if (previousSha256 != null && !Hashes.isSha256Hex(previousSha256)) {
      throw new IllegalArgumentException("previous SHA-256 '" + previousSha256 + "' is not 64 lowercase hex digits");
    }
    if (previousSha256 != null && previousSha256.equals(HexFormat.of().formatHex(NO_PREVIOUS))) {
      throw new IllegalArgumentException("a previous SHA-256 of zeros means 'none': pass null");
    }
    String problem = problem(partition, firstOffset, lastOffset, recordCount, minTimestamp, maxTimestamp,
        decodedBodyLength, storedBodyLength);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
  }

  /** How many offsets the segment covers: its records and its holes. */
  public long offsetCount() {
    return lastOffset - firstOffset + 1;
  }

  /** How many offsets of the range are holes. */
  public long holeOffsets() {
    return offsetCount() - recordCount;
  }

  /** The whole object's size. */
  public long objectSize() {
    return LENGTH + storedBodyLength;
  }

  /** Bytes 0-123: every field but the segment's own hash. */
  byte[] encodeHashedPart() {
    ByteBuffer b = ByteBuffer.allocate(SHA_OFFSET);
    b.put(MAGIC);
    b.putShort((short) FORMAT_VERSION);
    b.putShort((short) LENGTH);
    b.put((byte) codec.code());
    b.put(new byte[3]);
    b.putLong(topicId.getMostSignificantBits());
    b.putLong(topicId.getLeastSignificantBits());
    b.putInt(partition);
    b.putLong(firstOffset);
    b.putLong(lastOffset);
    b.putLong(recordCount);
    b.putLong(minTimestamp);
    b.putLong(maxTimestamp);
    b.putLong(decodedBodyLength);
    b.putLong(storedBodyLength);
    b.put(previousSha256 == null ? NO_PREVIOUS : HexFormat.of().parseHex(previousSha256));
    return b.array();
  }

  /** All {@link #LENGTH} bytes; the hash must be set. */
  public byte[] encode() {
    if (sha256 == null) {
      throw new IllegalStateException("the segment's SHA-256 is not known yet");
    }
    ByteBuffer b = ByteBuffer.allocate(LENGTH);
    b.put(encodeHashedPart());
    b.put(HexFormat.of().parseHex(sha256));
    return b.array();
  }

  SegmentHeader withSha256(String sha) {
    return new SegmentHeader(codec, topicId, partition, firstOffset, lastOffset, recordCount, minTimestamp,
        maxTimestamp, decodedBodyLength, storedBodyLength, previousSha256, sha);
  }

  /**
   * Parses the first {@link #LENGTH} bytes of a segment object and checks every field's own rules
   * (not the hash: that needs the body).
   *
   * @param name the segment's key, for messages
   * @throws CorruptSegmentException naming what is wrong
   */
  public static SegmentHeader decode(byte[] bytes, String name) {
    if (bytes.length < 12) {
      throw new CorruptSegmentException(name, "it has " + bytes.length + " bytes, too short for a header");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    byte[] magic = new byte[MAGIC.length];
    b.get(magic);
    if (!java.util.Arrays.equals(magic, MAGIC)) {
      throw new CorruptSegmentException(name, "it does not start with the segment magic bytes");
    }
    int version = Short.toUnsignedInt(b.getShort());
    if (version != FORMAT_VERSION) {
      throw new CorruptSegmentException(name, "format version " + version
          + " is not supported by this version of the tool (it reads version " + FORMAT_VERSION + ")");
    }
    int length = Short.toUnsignedInt(b.getShort());
    if (length != LENGTH || bytes.length < LENGTH) {
      throw new CorruptSegmentException(name, "header length " + length + " (" + bytes.length
          + " bytes read), format " + FORMAT_VERSION + " has " + LENGTH);
    }
    int codecCode = Byte.toUnsignedInt(b.get());
    Codec codec = Codec.ofCode(codecCode);
    if (codec == null) {
      throw new CorruptSegmentException(name, "unknown codec " + codecCode);
    }
    if (b.get() != 0 || b.get() != 0 || b.get() != 0) {
      throw new CorruptSegmentException(name, "reserved header bytes 13-15 are not zero");
    }
    Uuid topicId = new Uuid(b.getLong(), b.getLong());
    int partition = b.getInt();
    long first = b.getLong();
    long last = b.getLong();
    long count = b.getLong();
    long minTs = b.getLong();
    long maxTs = b.getLong();
    long decoded = b.getLong();
    long stored = b.getLong();
    byte[] previous = new byte[32];
    b.get(previous);
    byte[] sha = new byte[32];
    b.get(sha);
    String problem = problem(partition, first, last, count, minTs, maxTs, decoded, stored);
    if (problem != null) {
      throw new CorruptSegmentException(name, problem);
    }
    if (codec == Codec.NONE && decoded != stored) {
      throw new CorruptSegmentException(name, "an uncompressed body of " + stored + " bytes cannot decode to "
          + decoded);
    }
    String previousHex = java.util.Arrays.equals(previous, NO_PREVIOUS) ? null : HexFormat.of().formatHex(previous);
    return new SegmentHeader(codec, topicId, partition, first, last, count, minTs, maxTs, decoded, stored,
        previousHex, HexFormat.of().formatHex(sha));
  }

  private static String problem(int partition, long first, long last, long count, long minTs, long maxTs,
      long decoded, long stored) {
    if (partition < 0) {
      return "negative partition " + partition;
    }
    if (first < 0 || last < first || last == Long.MAX_VALUE) {
      return "invalid offset range " + first + "-" + last;
    }
    if (count < 0 || count > last - first + 1) {
      return "record count " + count + " does not fit the range " + first + "-" + last;
    }
    if (count == 0 ? (minTs != -1 || maxTs != -1) : maxTs < minTs) {
      return "timestamps " + minTs + "-" + maxTs + " do not fit " + count + " records";
    }
    if (decoded < 1 || stored < 1) {
      return "body lengths " + decoded + " (decoded) and " + stored + " (stored) must be positive";
    }
    return null;
  }

  @Override
  public String toString() {
    return "SegmentHeader[partition " + partition + ", offsets " + firstOffset + "-" + lastOffset + ", "
        + recordCount + " records, " + codec + " " + storedBodyLength + "/" + decodedBodyLength + " bytes, sha256 "
        + sha256 + ", previous " + previousSha256 + "]";
  }
}
