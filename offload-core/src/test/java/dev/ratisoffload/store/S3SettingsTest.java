package dev.ratisoffload.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The region rule the plugin and the CLI share. */
class S3SettingsTest {

  /** Regions S3-compatible servers use are taken; only what cannot be a region is refused. */
  @ParameterizedTest
  @ValueSource(strings = {"us-east-1", "default", "us-east-1-zone", "EU_WEST_1", "auto", "garage"})
  void regionsOfS3CompatibleServersAreTaken(String region) {
    assertEquals(region, S3Settings.requireRegion(region));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "us east 1", "eu-west-1/s3", "us-east-1\u001b[2J", "r\u00e9gion", "\t"})
  void whatCannotBeARegionIsRefused(String region) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> S3Settings.requireRegion(region));
    assertTrue(e.getMessage().contains("is not a region name") && !e.getMessage().contains("\u001b"),
        e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> S3Settings.requireRegion("a".repeat(65)));
  }
}
