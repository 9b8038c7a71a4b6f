package dev.ratisoffload.kafka.restore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.TimestampKind;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The codec follows the flag, else the target topic; a batch's size is the one the broker checks. */
class RestoreCompressionTest {

  @Test
  void theFlagWinsElseTheTopicsCodecElseUncompressed() {
    assertEquals("lz4", RestoreCompression.codec(Optional.empty(), Map.of("compression.type", "lz4")));
    assertEquals("none", RestoreCompression.codec(Optional.empty(), Map.of("compression.type", "uncompressed")));
    assertEquals("none", RestoreCompression.codec(Optional.empty(), Map.of("compression.type", "producer")));
    assertEquals("none", RestoreCompression.codec(Optional.empty(), Map.of()));
    assertEquals("zstd", RestoreCompression.codec(Optional.of("zstd"), Map.of("compression.type", "gzip")));
    assertEquals("none", RestoreCompression.codec(Optional.of("producer"), Map.of("compression.type", "gzip")));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> RestoreCompression.requireValid(Optional.of("brotli")));
    assertTrue(e.getMessage().contains("'brotli'"), e::getMessage);
  }

  @Test
  void aCompressibleRecordsBatchShrinksAndAnUncompressedOneIsItsSize() {
    BackupRecord record = new BackupRecord(7, 1_700_000_000_000L, TimestampKind.CREATE_TIME, null,
        new byte[100_000], List.of());
    int plain = RestoreCompression.batchBytes(record, "none");
    assertTrue(plain > 100_000 && plain < 100_100, () -> "uncompressed: " + plain);
    for (String codec : List.of("gzip", "snappy", "lz4", "zstd")) {
      int compressed = RestoreCompression.batchBytes(record, codec);
      assertTrue(compressed < 10_000, () -> codec + ": " + compressed);
    }
  }
}
