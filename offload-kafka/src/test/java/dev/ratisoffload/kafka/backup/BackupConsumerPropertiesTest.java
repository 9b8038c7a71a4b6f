package dev.ratisoffload.kafka.backup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** A client file may tune and secure the backup's consumer, never change what its correctness rests on. */
class BackupConsumerPropertiesTest {

  private static BackupSettings.Builder settings(Map<String, String> file) {
    return BackupSettings.builder("127.0.0.1:9092", "orders", "prod").clientProperties(file);
  }

  @ParameterizedTest
  @CsvSource({"auto.offset.reset,earliest", "isolation.level,read_uncommitted", "enable.auto.commit,true",
      "check.crcs,false", "allow.auto.create.topics,true"})
  void aFileSettingWhatTheBackupOwnsIsRefusedNamingTheKey(String key, String value) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> settings(Map.of(key, value, "security.protocol", "SSL")).build());
    assertTrue(e.getMessage().contains("--command-config sets " + key + "=" + value), e::getMessage);
  }

  @Test
  void theUsersSecurityAndTuningAreKeptAndTheFlagsWin() {
    Map<String, Object> p = BackupConsumerProperties.of(settings(Map.of("security.protocol", "SSL",
        "receive.buffer.bytes", "65536", "bootstrap.servers", "elsewhere:9092")).readCommitted(false).build());
    assertEquals("SSL", p.get("security.protocol"));
    assertEquals("65536", p.get("receive.buffer.bytes"));
    assertEquals("127.0.0.1:9092", p.get("bootstrap.servers"));
    assertEquals("none", p.get("auto.offset.reset"));
    assertEquals("read_uncommitted", p.get("isolation.level"));
  }
}
