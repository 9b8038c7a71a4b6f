package dev.ratisoffload.kafka.format;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Generators for segment contents: every shape a Kafka record and a partition's offsets can take. */
public final class SegmentArbitraries {

  private SegmentArbitraries() {}

  /** Null, empty, or arbitrary bytes (binary, not text), sometimes larger than a buffer. */
  public static Arbitrary<byte[]> nullableBytes() {
    return Arbitraries.<byte[]>frequencyOf(
        Tuple(1, Arbitraries.just((byte[]) null)),
        Tuple(1, Arbitraries.just(new byte[0])),
        Tuple(6, Arbitraries.bytes().array(byte[].class).ofMaxSize(64)),
        Tuple(1, Arbitraries.bytes().array(byte[].class).ofMinSize(1000).ofMaxSize(70_000)));
  }

  private static <T> net.jqwik.api.Tuple.Tuple2<Integer, Arbitrary<? extends T>> Tuple(int weight, Arbitrary<T> a) {
    return net.jqwik.api.Tuple.of(weight, a);
  }

  /** Header keys from a small set (so duplicates are common) or any text that survives UTF-8. */
  static Arbitrary<String> headerKeys() {
    return Arbitraries.oneOf(Arbitraries.of("trace", "type", "", "ключ"),
        Arbitraries.strings().ofMaxLength(12)
            .filter(s -> s.equals(new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8))));
  }

  static Arbitrary<RecordHeader> headers() {
    return Combinators.combine(headerKeys(), nullableBytes()).as(RecordHeader::new);
  }

  static Arbitrary<Long> timestamps() {
    return Arbitraries.oneOf(Arbitraries.just(-1L), Arbitraries.longs().between(1_600_000_000_000L, 1_900_000_000_000L),
        Arbitraries.longs());
  }

  /** A record at offset 0; {@link #entries} moves it to its place. */
  static Arbitrary<BackupRecord> records() {
    return Combinators.combine(timestamps(), Arbitraries.of(TimestampKind.class), nullableBytes(), nullableBytes(),
            headers().list().ofMaxSize(5))
        .as((ts, kind, key, value, headers) -> new BackupRecord(0, ts, kind, key, value, headers));
  }

  /** One step of a partition: offsets skipped (often none), then a record. */
  public record Step(long skipped, BackupRecord record) {}

  public static Arbitrary<Step> steps() {
    Arbitrary<Long> skips = Arbitraries.<Long>frequencyOf(Tuple(6, Arbitraries.just(0L)),
        Tuple(3, Arbitraries.longs().between(1, 5)), Tuple(1, Arbitraries.longs().between(6, 1_000_000)));
    return Combinators.combine(skips, records()).as(Step::new);
  }

  /** What a partition shows a backup from one offset on: steps, then offsets skipped at the end. */
  public record PartitionRun(long firstOffset, List<Step> steps, long trailingSkip) {

    /** The entries a segment of this run must hold: records in place, skips merged into holes. */
    public List<SegmentEntry> entries() {
      List<SegmentEntry> out = new ArrayList<>();
      long next = firstOffset;
      for (Step step : steps) {
        if (step.skipped() > 0) {
          out.add(new Hole(next, step.skipped()));
          next += step.skipped();
        }
        BackupRecord r = step.record();
        out.add(new BackupRecord(next, r.timestamp(), r.timestampKind(), r.key(), r.value(), r.headers()));
        next++;
      }
      if (trailingSkip > 0) {
        out.add(new Hole(next, trailingSkip));
      }
      return out;
    }

    public long endOffset() {
      long next = firstOffset;
      for (Step step : steps) {
        next += step.skipped() + 1;
      }
      return next + trailingSkip;
    }

    /** Writes the run with a writer, as the backup does: records, then advancing past trailing skips. */
    public SegmentWriter.EncodedSegment write(SegmentWriter writer) {
      entries().forEach(entry -> add(writer, entry));
      return writer.finish();
    }

    /** Gives a writer one entry: a record is appended, a hole is advanced past. */
    public static void add(SegmentWriter writer, SegmentEntry entry) {
      if (entry instanceof BackupRecord r) {
        writer.append(r);
      } else {
        writer.advanceTo(entry.offset() + entry.offsetCount());
      }
    }
  }

  public static Arbitrary<PartitionRun> runs() {
    Arbitrary<Long> first = Arbitraries.oneOf(Arbitraries.just(0L), Arbitraries.longs().between(0, 1L << 50));
    Arbitrary<Long> trailing = Arbitraries.<Long>frequencyOf(Tuple(3, Arbitraries.just(0L)),
        Tuple(1, Arbitraries.longs().between(1, 10)));
    return Combinators.combine(first, steps().list().ofMaxSize(30), trailing)
        .as(PartitionRun::new)
        .filter(run -> run.endOffset() > run.firstOffset());
  }

  /**
   * Runs whose body spans several of the zstd writer's blocks (256 KiB each): seven or more records
   * (seven values of at least 40,000 bytes take more than one block) with values of 40-160 KB,
   * sometimes holes between them. A value's bytes come from a seed (random capital letters
   * or random bytes), as generating each byte would take more memory than the test has.
   */
  public static Arbitrary<PartitionRun> runsOfSeveralBlocks() {
    Arbitrary<byte[]> values = Combinators.combine(Arbitraries.longs(), Arbitraries.integers().between(40_000, 160_000),
        Arbitraries.of(true, false)).as((seed, size, letters) -> {
          Random random = new Random(seed);
          byte[] value = new byte[size];
          if (letters) {
            for (int i = 0; i < size; i++) {
              value[i] = (byte) ('A' + random.nextInt(26));
            }
          } else {
            random.nextBytes(value);
          }
          return value;
        });
    Arbitrary<BackupRecord> large = Combinators.combine(timestamps(), values)
        .as((ts, value) -> new BackupRecord(0, ts, TimestampKind.CREATE_TIME, null, value, List.of()));
    Arbitrary<Long> skips = Arbitraries.<Long>frequencyOf(Tuple(3, Arbitraries.just(0L)),
        Tuple(1, Arbitraries.longs().between(1, 1000)));
    return Combinators.combine(skips, large).as(Step::new).list().ofMinSize(7).ofMaxSize(14)
        .map(steps -> new PartitionRun(0, steps, 0));
  }
}
