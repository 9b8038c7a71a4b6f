package dev.ratisoffload.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.VerificationRecord.Damage;
import dev.ratisoffload.store.IntegrityException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** Verification records read back exactly as written, and refuse any change, or a key that disagrees. */
class VerificationRecordsPropertiesTest {

  @Provide
  Arbitrary<VerificationRecord> records() {
    Arbitrary<String> sha = Arbitraries.bytes().array(byte[].class).ofSize(32).map(b -> HexFormat.of().formatHex(b));
    Arbitrary<Damage> damage = Combinators.combine(sha,
            Arbitraries.of(Damage.MISSING, Damage.WRONG_SIZE, Damage.WRONG_CONTENT),
            Arbitraries.of(true, false))
        .as((s, problem, kept) -> new Damage(s, problem, kept ? Layout.DAMAGED + "c/x/" + s + "-1" : null));
    return Combinators.combine(
            Arbitraries.longs().between(0, 1L << 40), Arbitraries.longs().between(0, 1L << 40),
            Arbitraries.longs().between(0, 4_000_000_000_000_000L), damage.list().ofMaxSize(4),
            Arbitraries.strings().ofMinLength(1).ofMaxLength(40).injectNull(0.6),
            Arbitraries.strings().withCharRange(' ', '~').ofMinLength(1).ofMaxLength(128).filter(s -> !s.isBlank()))
        .as((term, index, millis, damaged, note, by) -> VerificationRecord.of(
            new GenerationId("c-1", UUID.nameUUIDFromBytes(by.getBytes()).toString(), term, index),
            Instant.ofEpochSecond(0, millis), by, damaged, note));
  }

  private static String keyOf(VerificationRecord r) {
    return Layout.verificationKey(r.generation(), r.verifiedAt(), r.ok(), "0123456789abcdef");
  }

  @Property(tries = 300)
  void roundTripsAndTheKeySaysTheResult(@ForAll("records") VerificationRecord record) {
    String key = keyOf(record);
    assertEquals(record, VerificationRecords.decode(VerificationRecords.encode(record), key));
    Layout.VerificationMark mark = Layout.parseVerificationKey(key).orElseThrow();
    assertEquals(record.generation(), mark.id());
    assertEquals(record.ok(), mark.ok());
    assertEquals(record.verifiedAt(), mark.verifiedAt());
  }

  @Property(tries = 500)
  void rejectsEverySingleByteChange(@ForAll("records") VerificationRecord record,
      @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int position,
      @ForAll @IntRange(min = 1, max = 255) int delta) {
    byte[] changed = ManifestFixtures.withOneByteChanged(VerificationRecords.encode(record), position, delta);
    assertThrows(IntegrityException.class, () -> VerificationRecords.decode(changed, keyOf(record)));
  }

  @Property(tries = 200)
  void rejectsAKeyThatSaysAnotherResultOrGeneration(@ForAll("records") VerificationRecord record) {
    byte[] encoded = VerificationRecords.encode(record);
    GenerationId other = new GenerationId(record.cluster(), record.group(), record.term(), record.index() + 1);
    assertThrows(IntegrityException.class, () -> VerificationRecords.decode(encoded,
        Layout.verificationKey(record.generation(), record.verifiedAt(), !record.ok(), "0123456789abcdef")));
    assertThrows(IntegrityException.class, () -> VerificationRecords.decode(encoded,
        Layout.verificationKey(other, record.verifiedAt(), record.ok(), "0123456789abcdef")));
  }

  @Property(tries = 200)
  void refusesToWriteAnUnprintableVerifier(@ForAll("records") VerificationRecord record,
      @ForAll @IntRange(min = 0, max = 31) int control) {
    VerificationRecord hostile = new VerificationRecord(record.format(), record.cluster(), record.group(),
        record.term(), record.index(), record.verifiedAt(), "peer" + (char) control, record.result(),
        record.damaged(), record.note(), record.toolVersion());
    assertThrows(IllegalArgumentException.class, () -> VerificationRecords.encode(hostile));
  }
}
