package dev.ratisoffload.kafka.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.format.KafkaLayout.ChainStartKey;
import dev.ratisoffload.store.IntegrityException;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import org.apache.kafka.common.Uuid;

/** A chain-start marker reads back as written, and anything else in its place is refused as corrupt. */
class ChainStartMarkerPropertiesTest {

  private static final Uuid ID = Uuid.fromString("q1ZHO0DHRjS8G2cH1V6wrQ");

  @Provide
  Arbitrary<String> sha256() {
    return Arbitraries.strings().withChars("0123456789abcdef").ofLength(64);
  }

  @Property
  void aMarkerAndItsKeyRoundTrip(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long offset,
      @ForAll("sha256") String sha) {
    ChainStartKey key = new ChainStartKey("c", "orders", ID, 3, offset);
    assertEquals(key, KafkaLayout.parseChainStartKey(key.key()).orElseThrow());
    ChainStartMarker marker = new ChainStartMarker(offset, sha);
    assertEquals(marker, ChainStartMarker.decode(marker.encode(), key));
  }

  @Property
  void otherBytesAreCorruptNeverACrash(@ForAll byte[] bytes) {
    ChainStartKey key = new ChainStartKey("c", "orders", ID, 0, 7);
    IntegrityException e = assertThrows(IntegrityException.class, () -> ChainStartMarker.decode(bytes, key));
    assertTrue(e.getMessage().contains(key.key()), e.getMessage());
  }

  @Property
  void aMarkerNamingAnotherOffsetThanItsKeyIsCorrupt(@ForAll("sha256") String sha,
      @ForAll @LongRange(min = 0, max = 1_000_000) long offset) {
    ChainStartKey key = new ChainStartKey("c", "orders", ID, 0, offset + 1);
    byte[] other = new ChainStartMarker(offset, sha).encode();
    assertThrows(IntegrityException.class, () -> ChainStartMarker.decode(other, key));
    String text = new String(other, StandardCharsets.US_ASCII);
    assertThrows(IntegrityException.class,
        () -> ChainStartMarker.decode((text + " ").getBytes(StandardCharsets.US_ASCII), key));
  }

  @Property
  void hostileKeysAreNotMarkers(@ForAll String key) {
    KafkaLayout.parseChainStartKey(key); // never throws
    assertTrue(KafkaLayout.parseChainStartKey("kafka/c/orders/" + ID + "/0000000000/chain-start-" + key)
        .map(k -> key.matches("[0-9]{19}")).orElse(true));
  }
}
