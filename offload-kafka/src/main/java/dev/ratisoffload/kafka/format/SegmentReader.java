package dev.ratisoffload.kafka.format;

import com.github.luben.zstd.ZstdIOException;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import dev.ratisoffload.primitives.Hashes;
import java.io.ByteArrayInputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import java.util.zip.ZipException;

/**
 * Streams a segment's entries from its object, record by record, in bounded memory.
 *
 * <p>Every structural rule is checked as entries are read (offsets stay inside the range, lengths fit
 * the body, header keys are UTF-8); the record count, timestamps, body lengths and the SHA-256 are
 * checked when the end is reached, before {@link #next()} returns null. A caller that must not act
 * on a corrupt segment at all reads it to the end first ({@link #readAll}); a restore that streams
 * acts on entries as they come and learns of corruption by the exception at the end at the latest.
 *
 * <p>A pass that will read a segment twice keeps its decoded body the first time ({@link #keepBody()});
 * the second pass ({@link #ofVerifiedBody}) makes every structural check again, but neither hashes nor
 * decompresses: the body is what the first pass verified.
 *
 * <p>Errors: {@link CorruptSegmentException} for anything wrong with the bytes;
 * {@link UncheckedIOException} when the underlying stream fails (the store, not the data).
 */
public final class SegmentReader implements Closeable {

  private final String name;
  private final SegmentHeader header;
  /** The stored body, hashed as it is read; null when reading a body verified before. */
  private final HashingSource source;
  /** The decompressing stream, when the body is compressed: closed to free its native memory. */
  private final InputStream decompressor;
  private final Inflater inflater;
  private Buffer decoded;
  /** The copy of the decoded body, when {@link #keepBody()} asked for one. */
  private BodyCopy copy;
  private long decodedRead;
  private long next;
  private long records;
  private long minTimestamp = -1;
  private long maxTimestamp = -1;
  private long previousTimestamp;
  private boolean previousWasHole;
  private boolean finished;

  private SegmentReader(String name, SegmentHeader header, HashingSource source, Inflater inflater,
      InputStream decompressor, Buffer decoded) {
    this.name = name;
    this.header = header;
    this.source = source;
    this.inflater = inflater;
    this.decompressor = decompressor;
    this.decoded = decoded;
    this.next = header.firstOffset();
  }

  private static SegmentReader ofObject(InputStream object, String name) {
    byte[] headerBytes;
    try {
      headerBytes = object.readNBytes(SegmentHeader.LENGTH);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read segment " + name + ": " + e.getMessage(), e);
    }
    SegmentHeader header = SegmentHeader.decode(headerBytes, name);
    MessageDigest digest = Hashes.sha256();
    digest.update(headerBytes, 0, SegmentHeader.SHA_OFFSET);
    HashingSource source = new HashingSource(object, digest, header.storedBodyLength(), name);
    header.codec().requireAvailable(name);
    return switch (header.codec()) {
      case DEFLATE -> {
        Inflater inflater = new Inflater();
        InputStream inflating = new InflaterInputStream(source, inflater, 64 * 1024);
        yield new SegmentReader(name, header, source, inflater, inflating, new Buffer(inflating));
      }
      case ZSTD -> {
        InputStream zstd = newZstdStream(source, name);
        yield new SegmentReader(name, header, source, null, zstd, new Buffer(zstd));
      }
      default -> new SegmentReader(name, header, source, null, null, new Buffer(source));
    };
  }

  private static InputStream newZstdStream(InputStream source, String name) {
    try {
      // Not continuous: a frame cut short is damage, not a segment still being written.
      return new ZstdInputStreamNoFinalizer(source).setContinuous(false);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read segment " + name + ": " + e.getMessage(), e);
    }
  }

  /**
   * Reads and checks the header; entries follow with {@link #next()}. The reader owns the stream.
   *
   * @param name the segment's key, for messages
   */
  public static SegmentReader open(InputStream object, String name) {
    try {
      return ofObject(object, name);
    } catch (RuntimeException e) {
      closeQuietly(object);
      throw e;
    }
  }

  /**
   * Reads again a decoded body that {@link #keptBody()} gave after its segment was verified to the end:
   * every entry is checked again as it is read, but there is nothing to hash or decompress.
   */
  public static SegmentReader ofVerifiedBody(SegmentHeader header, byte[] body, String name) {
    return new SegmentReader(name, header, null, null, null, new Buffer(body));
  }

  /**
   * Keeps a copy of the decoded body as it is read, for a second pass over a segment verified once
   * ({@link #keptBody()}, {@link #ofVerifiedBody}); the copy takes the body's length as the header
   * states it. Call before reading the first entry.
   */
  public void keepBody() {
    if (decodedRead > 0 || copy != null || source == null) {
      throw new IllegalStateException("keepBody is for a segment's object, before its first entry is read");
    }
    if (header.decodedBodyLength() > Integer.MAX_VALUE - 16) {
      throw new IllegalStateException("segment " + name + " states a body of " + header.decodedBodyLength()
          + " bytes, more than an array holds");
    }
    copy = new BodyCopy(decoded.in, (int) header.decodedBodyLength());
    decoded = new Buffer(copy);
  }

  /** The decoded body kept by {@link #keepBody()}, once the whole segment was verified; null otherwise. */
  public byte[] keptBody() {
    return finished && copy != null ? copy.body : null;
  }

  /** Reads and verifies a whole segment held in memory. */
  public static List<SegmentEntry> readAll(byte[] object, String name) {
    try (SegmentReader reader = open(new ByteArrayInputStream(object), name)) {
      return reader.readAll();
    }
  }

  public SegmentHeader header() {
    return header;
  }

  /** The remaining entries, after verifying the whole segment. */
  public List<SegmentEntry> readAll() {
    List<SegmentEntry> entries = new ArrayList<>();
    for (SegmentEntry entry = next(); entry != null; entry = next()) {
      entries.add(entry);
    }
    return entries;
  }

  /** The next record or hole, or null once the end was reached and the whole segment verified. */
  public SegmentEntry next() {
    return read(false);
  }

  /**
   * Like {@link #next()}, with every check, but a record comes as its {@link RecordOutline}: its key and
   * value are skipped, not copied. For a pass that needs to know where records are and how large.
   */
  public SegmentEntry nextOutline() {
    return read(true);
  }

  private SegmentEntry read(boolean outline) {
    if (finished) {
      return null;
    }
    try {
      int type = readByte();
      switch (type) {
        case SegmentWriter.RECORD:
          previousWasHole = false;
          return readRecord(outline);
        case SegmentWriter.HOLE:
          return readHole();
        case SegmentWriter.END:
          verifyEnd();
          return null;
        default:
          throw corrupt("unknown entry type " + type + " at offset " + next);
      }
    } catch (ZipException | ZstdIOException e) {
      throw corrupt("the compressed body is damaged (" + e.getMessage() + ")");
    } catch (EOFException e) {
      throw corrupt("the body ends early, at offset " + next + " of " + header.firstOffset() + "-"
          + header.lastOffset());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read segment " + name + ": " + e.getMessage(), e);
    }
  }

  private SegmentEntry readRecord(boolean outline) throws IOException {
    if (next > header.lastOffset()) {
      throw corrupt("a record past the last offset " + header.lastOffset());
    }
    int kindCode = readByte();
    TimestampKind kind = TimestampKind.ofCode(kindCode);
    if (kind == null) {
      throw corrupt("unknown timestamp type " + kindCode + " at offset " + next);
    }
    long timestamp = previousTimestamp + Varints.unzigzag(readVarint());
    int keyLength = readNullableLength();
    byte[] key = outline ? skip(keyLength) : readBytesOrNull(keyLength);
    int valueLength = readNullableLength();
    byte[] value = outline ? skip(valueLength) : readBytesOrNull(valueLength);
    long headerCount = readVarint();
    if (headerCount < 0 || headerCount > remaining()) {
      throw corrupt("record at offset " + next + " claims " + headerCount + " headers");
    }
    List<RecordHeader> headers = headerCount == 0 ? List.of() : new ArrayList<>((int) headerCount);
    for (long i = 0; i < headerCount; i++) {
      headers.add(new RecordHeader(readUtf8(readLength()), readNullable()));
    }
    SegmentEntry record = outline
        ? new RecordOutline(next, timestamp, kind, keyLength, valueLength, headers)
        : new BackupRecord(next, timestamp, kind, key, value, headers);
    if (records == 0) {
      minTimestamp = timestamp;
      maxTimestamp = timestamp;
    } else {
      minTimestamp = Math.min(minTimestamp, timestamp);
      maxTimestamp = Math.max(maxTimestamp, timestamp);
    }
    previousTimestamp = timestamp;
    records++;
    next++;
    return record;
  }

  private Hole readHole() throws IOException {
    if (previousWasHole) {
      throw corrupt("two adjacent holes at offset " + next + " (a writer merges them)");
    }
    long count = readVarint();
    if (count < 1 || count > header.lastOffset() - next + 1) {
      throw corrupt("a hole of " + count + " offsets at offset " + next + " does not fit the range, which ends at "
          + header.lastOffset());
    }
    Hole hole = new Hole(next, count);
    next += count;
    previousWasHole = true;
    return hole;
  }

  private void verifyEnd() throws IOException {
    if (next != header.lastOffset() + 1) {
      throw corrupt("the entries end at offset " + (next - 1) + ", the header says " + header.lastOffset());
    }
    if (decoded.read() != -1) {
      throw corrupt("bytes follow the end marker");
    }
    if (inflater != null && inflater.getRemaining() != 0) {
      throw corrupt("bytes follow the compressed body");
    }
    if (source != null) {
      source.drainAndCheckEnd();
    }
    if (decodedRead != header.decodedBodyLength()) {
      throw corrupt("the body decodes to " + decodedRead + " bytes, the header says " + header.decodedBodyLength());
    }
    if (records != header.recordCount()) {
      throw corrupt("it holds " + records + " records, the header says " + header.recordCount());
    }
    if (minTimestamp != header.minTimestamp() || maxTimestamp != header.maxTimestamp()) {
      throw corrupt("record timestamps span " + minTimestamp + "-" + maxTimestamp + ", the header says "
          + header.minTimestamp() + "-" + header.maxTimestamp());
    }
    if (source != null) {
      String sha = Hashes.hex(source.digest.digest());
      if (!sha.equals(header.sha256())) {
        throw corrupt("its SHA-256 is " + sha + ", the header says " + header.sha256() + " (bytes were changed)");
      }
    }
    finished = true;
    close();
  }

  private long remaining() {
    return header.decodedBodyLength() - decodedRead;
  }

  private int readByte() throws IOException {
    int b = decoded.read();
    if (b < 0) {
      throw new EOFException();
    }
    countDecoded(1);
    return b;
  }

  private long readVarint() throws IOException {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int b = readByte();
      value |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        if (shift == 63 && b > 1) {
          break;
        }
        return value;
      }
    }
    throw corrupt("a varint longer than 64 bits at offset " + next);
  }

  private int readLength() throws IOException {
    long length = readVarint();
    if (length < 0 || length > remaining() || length > Integer.MAX_VALUE - 16) {
      throw corrupt("a length of " + length + " bytes at offset " + next + " exceeds the body");
    }
    return (int) length;
  }

  private byte[] readNullable() throws IOException {
    return readBytesOrNull(readNullableLength());
  }

  /** A nullable field's length, -1 for null. */
  private int readNullableLength() throws IOException {
    long lengthPlusOne = readVarint();
    if (lengthPlusOne == 0) {
      return -1;
    }
    long length = lengthPlusOne - 1; // a varint is unsigned: above 2^63 it reads as negative here
    if (length < 0 || length > remaining() || length > Integer.MAX_VALUE - 16) {
      throw corrupt("a length of " + length + " bytes at offset " + next + " exceeds the body");
    }
    return (int) length;
  }

  private byte[] readBytesOrNull(int length) throws IOException {
    return length < 0 ? null : readBytes(length);
  }

  /** Passes over a nullable field of {@code length} bytes (-1: null); returns null, as nothing was copied. */
  private byte[] skip(int length) throws IOException {
    if (length > 0) {
      if (length > remaining()) {
        throw corrupt("a length of " + length + " bytes at offset " + next + " exceeds the body");
      }
      decoded.skip(length);
      countDecoded(length);
    }
    return null;
  }

  private byte[] readBytes(int length) throws IOException {
    if (length > remaining()) {
      throw corrupt("a length of " + length + " bytes at offset " + next + " exceeds the body");
    }
    byte[] bytes = decoded.readExactly(length);
    countDecoded(length);
    return bytes;
  }

  private String readUtf8(int length) throws IOException {
    byte[] bytes = readBytes(length);
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw corrupt("a header key at offset " + next + " is not UTF-8");
    }
  }

  private void countDecoded(long n) {
    decodedRead += n;
    if (decodedRead > header.decodedBodyLength()) {
      throw corrupt("the body decodes to more than the " + header.decodedBodyLength() + " bytes the header says");
    }
  }

  private CorruptSegmentException corrupt(String problem) {
    close();
    return new CorruptSegmentException(name, problem);
  }

  @Override
  public void close() {
    if (inflater != null) {
      inflater.end();
    }
    if (decompressor != null) {
      closeQuietly(decompressor);
    }
    if (source != null) {
      closeQuietly(source.in);
    }
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException | RuntimeException ignored) {
      // closing after a failure or at the end; nothing more to learn
    }
  }

  /** An unsynchronised buffer over the decoded body: entries are read a byte or a field at a time. */
  private static final class Buffer {
    private final InputStream in;
    private final byte[] buf;
    private int pos;
    private int limit;

    Buffer(InputStream in) {
      this.in = in;
      this.buf = new byte[64 * 1024];
    }

    /** A buffer over a whole body in memory: read where it lies, not copied block by block. */
    Buffer(byte[] whole) {
      this.in = InputStream.nullInputStream();
      this.buf = whole;
      this.limit = whole.length;
    }

    int read() throws IOException {
      if (pos == limit && !fill()) {
        return -1;
      }
      return buf[pos++] & 0xFF;
    }

    /** Passes over exactly {@code length} bytes; the caller has checked the length against the body's size. */
    void skip(int length) throws IOException {
      int left = length;
      while (left > 0) {
        if (pos == limit && !fill()) {
          throw new EOFException();
        }
        int n = Math.min(left, limit - pos);
        pos += n;
        left -= n;
      }
    }

    /** Exactly {@code length} bytes; the caller has checked the length against the body's size. */
    byte[] readExactly(int length) throws IOException {
      byte[] out = new byte[length];
      int copied = Math.min(length, limit - pos);
      System.arraycopy(buf, pos, out, 0, copied);
      pos += copied;
      while (copied < length) {
        int n = in.read(out, copied, length - copied);
        if (n < 0) {
          throw new EOFException();
        }
        copied += n;
      }
      return out;
    }

    private boolean fill() throws IOException {
      int n = in.read(buf, 0, buf.length);
      if (n <= 0) {
        return false;
      }
      pos = 0;
      limit = n;
      return true;
    }
  }

  /** A stream read in blocks: a single byte is read as a block of one. */
  private abstract static class BlockStream extends InputStream {
    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : Byte.toUnsignedInt(one[0]);
    }
  }

  /** Copies the decoded body as it passes into an array of the length the header states. */
  private final class BodyCopy extends BlockStream {
    private final InputStream in;
    private final byte[] body;
    private int length;

    BodyCopy(InputStream in, int bodyLength) {
      this.in = in;
      this.body = new byte[bodyLength];
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = in.read(b, off, len);
      if (n > 0) {
        if (n > body.length - length) {
          throw corrupt("the body decodes to more than the " + body.length + " bytes the header says");
        }
        System.arraycopy(b, off, body, length, n);
        length += n;
      }
      return n;
    }
  }

  /**
   * The stored body: hashes what passes through, never reads past the length the header states, and
   * checks at the end that the object holds nothing more.
   */
  private static final class HashingSource extends BlockStream {
    private final InputStream in;
    private final MessageDigest digest;
    private final String name;
    private long left;

    HashingSource(InputStream in, MessageDigest digest, long length, String name) {
      this.in = in;
      this.digest = digest;
      this.left = length;
      this.name = name;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (left == 0) {
        return -1;
      }
      int n = in.read(b, off, (int) Math.min(len, left));
      if (n < 0) {
        throw new EOFException();
      }
      digest.update(b, off, n);
      left -= n;
      return n;
    }

    void drainAndCheckEnd() throws IOException {
      if (left > 0) {
        throw new CorruptSegmentException(name, left + " stored body bytes follow the end of the compressed body");
      }
      if (in.read() != -1) {
        throw new CorruptSegmentException(name, "the object is longer than the header says");
      }
    }
  }
}
