package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import picocli.CommandLine.TypeConversionException;

/** {@code --keep-bytes SIZE}: sizes with and without units, and anything else refused with what was expected. */
class ByteSizePropertiesTest {

  private final Converters.ByteSize size = new Converters.ByteSize();

  @Example
  void unitsArePowersOf1000Or1024() {
    assertEquals(1, size.convert("1"));
    assertEquals(500_000_000L, size.convert("500MB"));
    assertEquals(20L << 30, size.convert("20GiB"));
    assertEquals(2L << 40, size.convert("2 TiB"));
    assertEquals(3_000L, size.convert("3KB"));
  }

  @Property
  void aNumberOfBytesIsItself(@ForAll @LongRange(min = 1, max = 999_999_999_999_999_999L) long bytes) {
    assertEquals(bytes, size.convert(Long.toString(bytes)));
  }

  @Property
  void anythingElseIsRefusedNeverACrash(@ForAll String text) {
    try {
      assertTrue(size.convert(text) > 0);
    } catch (TypeConversionException e) {
      assertTrue(e.getMessage().contains("is not a size"), e.getMessage());
    }
  }

  @Example
  void zeroOverflowAndUnknownUnitsAreRefused() {
    assertThrows(TypeConversionException.class, () -> size.convert("0"));
    assertThrows(TypeConversionException.class, () -> size.convert("999999999TiB"));
    assertThrows(TypeConversionException.class, () -> size.convert("12 apples"));
    assertThrows(TypeConversionException.class, () -> size.convert("-5"));
  }
}
