package dev.ratisoffload.kafka.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import dev.ratisoffload.kafka.format.SegmentArbitraries.PartitionRun;
import dev.ratisoffload.kafka.format.SegmentWriter.EncodedSegment;
import dev.ratisoffload.primitives.Hashes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.common.Uuid;

class SegmentCodecPropertiesTest {

  private static final Uuid TOPIC_ID = Uuid.fromString("q1ZHO0DHRjS8G2cH1V6wrQ");
  private static final int BLOCK = ZstdBlockCompressor.BLOCK;

  @Provide
  Arbitrary<PartitionRun> runs() {
    return SegmentArbitraries.runs();
  }

  @Provide
  Arbitrary<PartitionRun> runsOfSeveralBlocks() {
    return SegmentArbitraries.runsOfSeveralBlocks();
  }

  private static EncodedSegment encode(PartitionRun run, Codec codec, String previous) {
    return run.write(new SegmentWriter(TOPIC_ID, 7, run.firstOffset(), previous, codec, codec.defaultLevel()));
  }

  @Property(tries = 200)
  void everyFieldOfEveryRecordAndEveryHoleReadsBackIdentical(@ForAll("runs") PartitionRun run,
      @ForAll Codec codec) {
    EncodedSegment segment = encode(run, codec, null);
    byte[] object = segment.content().toByteArray();
    assertEquals(segment.header().objectSize(), object.length);

    List<SegmentEntry> read = SegmentReader.readAll(object, "test");

    assertEquals(run.entries(), read);
    SegmentHeader header = SegmentHeader.decode(Arrays.copyOf(object, SegmentHeader.LENGTH), "test");
    assertEquals(segment.header(), header);
    assertEquals(run.firstOffset(), header.firstOffset());
    assertEquals(run.endOffset() - 1, header.lastOffset());
    assertEquals(run.steps().size(), header.recordCount());
    assertNull(header.previousSha256());
  }

  @Property(tries = 100)
  void theSameRunAlwaysEncodesToTheSameBytes(@ForAll("runs") PartitionRun run, @ForAll Codec codec) {
    String previous = "ab".repeat(32);
    byte[] a = encode(run, codec, previous).content().toByteArray();
    byte[] b = encode(run, codec, previous).content().toByteArray();
    assertTrue(Arrays.equals(a, b));
    assertEquals(previous, SegmentHeader.decode(a, "test").previousSha256());
  }

  /** Outlines come with every check whole records do, and describe exactly the records they stand for. */
  @Property(tries = 200)
  void outlinesDescribeTheRecordsTheyStandFor(@ForAll("runs") PartitionRun run, @ForAll Codec codec) {
    byte[] object = encode(run, codec, null).content().toByteArray();
    List<SegmentEntry> expected = run.entries().stream()
        .map(e -> e instanceof BackupRecord record ? RecordOutline.of(record) : e).toList();
    assertEquals(expected, readOutlines(object));
  }

  @Property(tries = 300)
  void anyChangedByteIsDetected(@ForAll("runs") PartitionRun run, @ForAll Codec codec,
      @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE - 1) int position, @ForAll @IntRange(min = 1, max = 255) int flip,
      @ForAll boolean outlines, @ForAll boolean keepBody) {
    byte[] object = encode(run, codec, null).content().toByteArray();
    int at = position % object.length;
    object[at] ^= (byte) flip;
    assertThrows(CorruptSegmentException.class, () -> read(object, outlines, keepBody));
  }

  @Property(tries = 200)
  void aTruncatedOrExtendedObjectIsDetected(@ForAll("runs") PartitionRun run, @ForAll Codec codec,
      @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE - 1) int position, @ForAll boolean extend,
      @ForAll boolean outlines, @ForAll boolean keepBody) {
    byte[] object = encode(run, codec, null).content().toByteArray();
    byte[] changed = extend
        ? Arrays.copyOf(object, object.length + 1 + position % 100)
        : Arrays.copyOf(object, position % object.length);
    assertThrows(CorruptSegmentException.class, () -> read(changed, outlines, keepBody));
  }

  /** A zstd body's frame: where it starts in the object, and how many bytes it decodes to. */
  private record Frame(int offset, long decodedSize) {}

  private static List<Frame> frames(byte[] object) {
    List<Frame> frames = new ArrayList<>();
    for (int at = SegmentHeader.LENGTH; at < object.length; ) {
      long size = Zstd.findFrameCompressedSize(object, at);
      assertTrue(size > 0 && at + size <= object.length, "a frame at " + at + ": " + size);
      frames.add(new Frame(at, Zstd.getFrameContentSize(object, at, object.length - at)));
      at += (int) size;
    }
    return frames;
  }

  /** A body of several zstd frames, one per block, reads back whole, and any change to it is detected. */
  @Property(tries = 30)
  void aBodyOfSeveralFramesReadsBackAndAnyChangedByteIsDetected(@ForAll("runsOfSeveralBlocks") PartitionRun run,
      @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE - 1) int position, @ForAll @IntRange(min = 1, max = 255) int flip,
      @ForAll boolean outlines) {
    EncodedSegment segment = encode(run, Codec.ZSTD, null);
    byte[] object = segment.content().toByteArray();
    long decoded = segment.header().decodedBodyLength();
    List<Frame> frames = frames(object);
    assertTrue(frames.size() > 1, "several blocks: " + segment.header());
    for (int i = 0; i < frames.size() - 1; i++) {
      assertEquals(BLOCK, frames.get(i).decodedSize(), "frame " + i + " of " + frames);
    }
    long last = decoded - (long) BLOCK * (frames.size() - 1);
    assertTrue(last > 0 && last <= BLOCK, "the last frame holds the rest: " + frames);
    assertEquals(last, frames.get(frames.size() - 1).decodedSize());
    assertEquals(run.entries(), SegmentReader.readAll(object, "test"));
    int at = position % object.length;
    object[at] ^= (byte) flip;
    assertThrows(CorruptSegmentException.class, () -> read(object, outlines, false));
  }

  /**
   * A body whose last frames are gone is refused even when its header and hash were made to match what
   * is left: each frame ends cleanly, so only the entries can tell (a record runs past the body's end,
   * or the end marker is missing).
   */
  @Property(tries = 30)
  void aBodyCutAtAFrameBoundaryIsRefused(@ForAll("runsOfSeveralBlocks") PartitionRun run,
      @ForAll @IntRange(min = 1, max = 1000) int keep, @ForAll boolean outlines) {
    EncodedSegment segment = encode(run, Codec.ZSTD, null);
    byte[] object = segment.content().toByteArray();
    List<Frame> frames = frames(object);
    assertTrue(frames.size() > 1, "several blocks: " + segment.header());
    int kept = 1 + keep % (frames.size() - 1);
    Frame firstGone = frames.get(kept);
    byte[] body = Arrays.copyOfRange(object, SegmentHeader.LENGTH, firstGone.offset());
    byte[] cut = objectWithBody(segment.header(), (long) BLOCK * kept, body);
    assertThrows(CorruptSegmentException.class, () -> read(cut, outlines, false));
  }

  /**
   * Writers that share a compressor, their records interleaved as a backup's partitions are, write the
   * same bytes as writers with a compressor each.
   */
  @Property(tries = 20)
  void writersSharingACompressorWriteTheSameBytes(@ForAll("runsOfSeveralBlocks") PartitionRun a,
      @ForAll("runsOfSeveralBlocks") PartitionRun b, @ForAll("runs") PartitionRun c) {
    List<PartitionRun> runs = List.of(a, b, c);
    try (ZstdBlockCompressor shared = new ZstdBlockCompressor(Codec.ZSTD.defaultLevel())) {
      List<SegmentWriter> writers = runs.stream()
          .map(run -> new SegmentWriter(TOPIC_ID, 7, run.firstOffset(), null, shared)).toList();
      List<List<SegmentEntry>> entries = runs.stream().map(PartitionRun::entries).toList();
      int longest = entries.stream().mapToInt(List::size).max().orElseThrow();
      for (int i = 0; i < longest; i++) {
        for (int w = 0; w < runs.size(); w++) {
          if (i < entries.get(w).size()) {
            PartitionRun.add(writers.get(w), entries.get(w).get(i));
          }
        }
      }
      for (int w = 0; w < runs.size(); w++) {
        byte[] own = encode(runs.get(w), Codec.ZSTD, null).content().toByteArray();
        byte[] sharing = writers.get(w).finish().content().toByteArray();
        assertTrue(Arrays.equals(own, sharing), "run " + w);
      }
    }
  }

  /** A zstd body in one streaming frame, as earlier versions wrote segments, reads back the same. */
  @Property(tries = 50)
  void aBodyInOneFrameAsWrittenBeforeReadsBack(@ForAll("runs") PartitionRun run, @ForAll boolean outlines)
      throws IOException {
    EncodedSegment segment = encode(run, Codec.ZSTD, null);
    byte[] object = segment.content().toByteArray();
    SegmentHeader header = segment.header();
    byte[] decoded = Zstd.decompress(Arrays.copyOfRange(object, SegmentHeader.LENGTH, object.length),
        (int) header.decodedBodyLength());
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    try (ZstdOutputStreamNoFinalizer zstd = new ZstdOutputStreamNoFinalizer(body, 1)) {
      zstd.write(decoded);
    }
    byte[] oneFrame = body.toByteArray();
    assertEquals(oneFrame.length, Zstd.findFrameCompressedSize(oneFrame, 0), "one frame");
    byte[] written = objectWithBody(header, header.decodedBodyLength(), oneFrame);

    assertEquals(outlines ? readOutlines(object) : run.entries(), read(written, outlines, false));
  }

  /** A segment's object with another stored body, its header's lengths and hash made to match it. */
  private static byte[] objectWithBody(SegmentHeader header, long decodedLength, byte[] body) {
    SegmentHeader changed = new SegmentHeader(header.codec(), header.topicId(), header.partition(),
        header.firstOffset(), header.lastOffset(), header.recordCount(), header.minTimestamp(), header.maxTimestamp(),
        decodedLength, body.length, header.previousSha256(), null);
    MessageDigest sha = Hashes.sha256();
    sha.update(changed.encodeHashedPart());
    sha.update(body);
    changed = changed.withSha256(Hashes.hex(sha.digest()));
    byte[] object = Arrays.copyOf(changed.encode(), SegmentHeader.LENGTH + body.length);
    System.arraycopy(body, 0, object, SegmentHeader.LENGTH, body.length);
    return object;
  }

  /**
   * Reads a segment to its end, keeping its body as a restore's verify pass does when asked to (and when
   * the header's body length fits the budget a restore would give it).
   */
  private static List<SegmentEntry> read(byte[] object, boolean outlines, boolean keepBody) {
    List<SegmentEntry> entries = new java.util.ArrayList<>();
    try (SegmentReader reader = SegmentReader.open(new java.io.ByteArrayInputStream(object), "test")) {
      if (keepBody && reader.header().decodedBodyLength() <= 1 << 20) {
        reader.keepBody();
      }
      for (SegmentEntry e = outlines ? reader.nextOutline() : reader.next(); e != null;
          e = outlines ? reader.nextOutline() : reader.next()) {
        entries.add(e);
      }
    }
    return entries;
  }

  private static List<SegmentEntry> readOutlines(byte[] object) {
    return read(object, true, false);
  }

  /** A body kept by the first pass reads back, every check made again, as the segment's entries. */
  @Property(tries = 200)
  void aKeptBodyReadsBackAsTheEntriesOfItsSegment(@ForAll("runs") PartitionRun run, @ForAll Codec codec,
      @ForAll boolean outlines) {
    byte[] object = encode(run, codec, null).content().toByteArray();
    try (SegmentReader reader = SegmentReader.open(new java.io.ByteArrayInputStream(object), "test")) {
      reader.keepBody();
      SegmentEntry first = outlines ? reader.nextOutline() : reader.next();
      assertNull(reader.keptBody(), "not before the segment was verified to its end");
      for (SegmentEntry e = first; e != null; e = outlines ? reader.nextOutline() : reader.next()) {
        // the first pass
      }
      byte[] body = reader.keptBody();
      assertEquals(reader.header().decodedBodyLength(), body.length);

      try (SegmentReader again = SegmentReader.ofVerifiedBody(reader.header(), body, "test")) {
        assertEquals(run.entries(), again.readAll());
      }
    }
  }

  @Property(tries = 50)
  void readsStreamRecordByRecordAndVerifyAtTheEnd(@ForAll("runs") PartitionRun run, @ForAll Codec codec) {
    byte[] object = encode(run, codec, null).content().toByteArray();
    try (SegmentReader reader = SegmentReader.open(new java.io.ByteArrayInputStream(object), "test")) {
      int i = 0;
      for (SegmentEntry e = reader.next(); e != null; e = reader.next()) {
        assertEquals(run.entries().get(i++), e);
      }
      assertEquals(run.entries().size(), i);
      assertNull(reader.next());
    }
  }

  /** A kept body cut short is refused by the second pass's checks (they do not rest on the hash). */
  @Property(tries = 100)
  void aKeptBodyCutShortIsRefused(@ForAll("runs") PartitionRun run, @ForAll Codec codec,
      @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE - 1) int position) {
    byte[] object = encode(run, codec, null).content().toByteArray();
    SegmentHeader header;
    byte[] body;
    try (SegmentReader reader = SegmentReader.open(new java.io.ByteArrayInputStream(object), "test")) {
      reader.keepBody();
      reader.readAll();
      header = reader.header();
      body = reader.keptBody();
    }
    byte[] cut = Arrays.copyOf(body, position % body.length);
    assertThrows(CorruptSegmentException.class, () -> SegmentReader.ofVerifiedBody(header, cut, "test").readAll());
  }

  /** A segment whose hash alone shows the damage gives no kept body; keepBody comes before any entry. */
  @Example
  void aBodyIsKeptOnlyFromASegmentVerifiedToItsEnd() {
    SegmentWriter writer = new SegmentWriter(TOPIC_ID, 0, 0, null, Codec.NONE, 0);
    writer.append(new BackupRecord(0, 1_000, TimestampKind.CREATE_TIME, null,
        "a value".getBytes(java.nio.charset.StandardCharsets.UTF_8), List.of()));
    byte[] object = writer.finish().content().toByteArray();
    object[object.length - 3] ^= 1; // inside the value: only the SHA-256 can tell

    try (SegmentReader reader = SegmentReader.open(new java.io.ByteArrayInputStream(object), "test")) {
      reader.keepBody();
      assertThrows(CorruptSegmentException.class, reader::readAll);
      assertNull(reader.keptBody());
    }
    try (SegmentReader reader = SegmentReader.open(new java.io.ByteArrayInputStream(object), "test")) {
      reader.next();
      assertThrows(IllegalStateException.class, reader::keepBody);
    }
  }

  /** A body of many blocks (incompressible values): streamed, copied and read in ranges, the same bytes. */
  @Example
  void aLargeSegmentReadsBackWhicheverWayItsBytesAreTaken() throws Exception {
    java.util.Random random = new java.util.Random(3);
    SegmentWriter writer = new SegmentWriter(TOPIC_ID, 0, 100, null);
    List<SegmentEntry> written = new java.util.ArrayList<>();
    for (int i = 0; i < 600; i++) {
      byte[] value = new byte[1 + random.nextInt(8192)];
      random.nextBytes(value);
      BackupRecord record = new BackupRecord(100 + i, 1_000 + i, TimestampKind.CREATE_TIME, null, value, List.of());
      writer.append(record);
      written.add(record);
    }
    EncodedSegment segment = writer.finish();
    byte[] copied = segment.content().toByteArray();
    byte[] streamed;
    try (java.io.InputStream in = segment.content().open()) {
      streamed = in.readAllBytes();
    }
    java.io.ByteArrayOutputStream ranges = new java.io.ByteArrayOutputStream();
    for (long at = 0; at < segment.content().size(); at += 100_000) {
      try (java.io.InputStream in = segment.content().open(at, Math.min(100_000, segment.content().size() - at))) {
        in.transferTo(ranges);
      }
    }
    assertEquals(Codec.ZSTD, segment.header().codec(), "new segments are written with zstd where it loads");
    assertTrue(copied.length > 1024 * 1024, "the body spans several blocks: " + copied.length);
    assertEquals(segment.header().objectSize(), copied.length);
    assertTrue(Arrays.equals(copied, streamed));
    assertTrue(Arrays.equals(copied, ranges.toByteArray()));
    assertEquals(written, SegmentReader.readAll(copied, "test"));
  }
}
