package dev.ratisoffload.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.retention.RetentionPolicy;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreDescription;
import java.time.Duration;
import java.util.stream.Stream;
import org.apache.ratis.conf.RaftProperties;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

class OffloadSettingsTest {

  private static RaftProperties valid() {
    RaftProperties p = new RaftProperties();
    p.set("offload.store.uri", "s3://backups/ratis");
    p.set("offload.cluster.id", "orders-prod");
    return p;
  }

  /** Each row: a key, a value, and words the error message must contain besides the key and value. */
  static Stream<Arguments> invalidSettings() {
    return Stream.of(
        Arguments.of("offload.cluster.id", "", "missing offload.cluster.id"),
        Arguments.of("offload.cluster.id", "bad id", "letters, digits"),
        Arguments.of("offload.cluster.id", "../x", "letters, digits"),
        Arguments.of("offload.store.uri", "", "missing offload.store.uri"),
        Arguments.of("offload.store.uri", "ftp://x/y", "scheme"),
        Arguments.of("offload.store.uri", "s3://", "bucket"),
        Arguments.of("offload.store.uri", "s3://Bad_Bucket/x", "bucket"),
        Arguments.of("offload.store.uri", "file:relative/dir", "file:///"),
        Arguments.of("offload.store.uri", "s3://bucket/a//b", "segment"),
        Arguments.of("offload.s3.endpoint", "not a url", "http"),
        Arguments.of("offload.s3.endpoint", "ftp://127.0.0.1:9000", "http"),
        Arguments.of("offload.s3.endpoint", "http://127.0.0.1:9000/?x=1", "query"),
        Arguments.of("offload.s3.region", "us east 1", "region name"),
        Arguments.of("offload.s3.region", "eu-west-1/s3", "region name"),
        Arguments.of("offload.s3.path-style", "yes", "true or false"),
        Arguments.of("offload.s3.sse", "aes", "none, AES256 or aws:kms"),
        Arguments.of("offload.s3.checksum", "always", "when_supported or when_required"),
        Arguments.of("offload.s3.sse.kms-key-id", "arn:aws:kms:key/1", "aws:kms"),
        Arguments.of("offload.schedule.interval", "0s", "positive"),
        Arguments.of("offload.schedule.interval", "-5min", "positive"),
        Arguments.of("offload.schedule.interval", "soon", "duration"),
        Arguments.of("offload.schedule.jitter", "-1s", "0 or a positive"),
        Arguments.of("offload.schedule.jitter", "2h", "may not exceed"),
        Arguments.of("offload.schedule.concurrency", "0", "positive whole number"),
        Arguments.of("offload.schedule.concurrency", "-2", "positive whole number"),
        Arguments.of("offload.schedule.concurrency", "many", "positive whole number"),
        Arguments.of("offload.upload.parallelism", "0", "positive whole number"),
        Arguments.of("offload.upload.chunk-size", "1000", "power of two"),
        Arguments.of("offload.upload.chunk-size", "64MB", "power of two"),
        Arguments.of("offload.upload.chunk-size", "big", "size"),
        Arguments.of("offload.upload.bandwidth", "fast", "0 (no limit) or bytes per second"),
        Arguments.of("offload.upload.bandwidth", "-1MB", "0 (no limit) or bytes per second"),
        Arguments.of("offload.upload.bandwidth", "64MB/s", "0 (no limit) or bytes per second"),
        Arguments.of("offload.spool.dir", "relative/spool", "absolute"),
        Arguments.of("offload.preflight.required", "maybe", "true or false"),
        Arguments.of("offload.snapshot.trigger-gap", "-1", "0 (off)"),
        Arguments.of("offload.snapshot.trigger-gap", "lots", "0 (off)"),
        Arguments.of("offload.retention.keep-last", "-1", "0 (off)"),
        Arguments.of("offload.retention.keep-daily", "seven", "0 (off)"),
        Arguments.of("offload.retention.keep-hourly", "1.5", "0 (off)"),
        Arguments.of("offload.retention.keep-weekly", "-3", "0 (off)"),
        Arguments.of("offload.retention.keep-monthly", "x", "0 (off)"),
        Arguments.of("offload.retention.keep-within", "-1h", "0 or a positive"),
        Arguments.of("offload.retention.keep-within", "a week", "duration"),
        Arguments.of("offload.retention.chunk-grace", "-5min", "at least 1min"),
        Arguments.of("offload.retention.chunk-grace", "59s", "at least 1min"),
        Arguments.of("offload.retention.chunk-grace", "0s", "at least 1min"),
        Arguments.of("offload.scrub.interval", "-1h", "0 or a positive"),
        Arguments.of("offload.scrub.bandwidth", "fast", "0 (no limit) or bytes per second"));
  }

  @ParameterizedTest(name = "{0} = ''{1}''")
  @MethodSource("invalidSettings")
  void invalidValueFailsNamingKeyAndValue(String key, String value, String expected) {
    RaftProperties p = valid();
    p.set(key, value);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OffloadSettings.read(p));
    assertTrue(e.getMessage().contains(key), e.getMessage());
    assertTrue(e.getMessage().contains(value), e.getMessage());
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  @Test
  void aChunkGraceBelowTheSafeMinimumIsRefusedAsOffloadGcRefusesIt() {
    RaftProperties p = valid();
    p.set("offload.retention.chunk-grace", "30s");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OffloadSettings.read(p));
    IllegalArgumentException shared = assertThrows(IllegalArgumentException.class, () ->
        RetentionPolicy.requireSafeChunkGrace("offload.retention.chunk-grace", "30s", Duration.ofSeconds(30)));
    assertEquals(shared.getMessage(), e.getMessage());
    p.set("offload.retention.chunk-grace", "1min");
    assertEquals(Duration.ofMinutes(1), OffloadSettings.read(p).retention().chunkGrace());
  }

  @Test
  void retentionWithoutScrubbingIsRefused() {
    RaftProperties p = valid();
    p.set("offload.retention.keep-last", "3");
    p.set("offload.scrub.interval", "0");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OffloadSettings.read(p));
    assertTrue(e.getMessage().contains("offload.scrub.interval") && e.getMessage().contains("retention"),
        e.getMessage());
    p.set("offload.retention.keep-last", "0");
    assertEquals(Duration.ZERO, OffloadSettings.read(p).scrubInterval(), "without retention it may be off");
  }

  @Test
  void defaults() {
    OffloadSettings s = OffloadSettings.read(valid());
    assertEquals("backups", s.store().uri().bucket());
    assertEquals("ratis", s.store().uri().prefix());
    assertEquals(Duration.ofHours(1), s.interval());
    assertEquals(Duration.ofMinutes(15), s.jitter());
    assertEquals(2, s.concurrency());
    assertEquals(64L * 1024 * 1024, s.uploadBandwidth());
    assertEquals(Duration.ofHours(24), s.scrubInterval());
    assertEquals(16L * 1024 * 1024, s.scrubBandwidth());
    assertEquals(S3Settings.Encryption.NONE, s.store().s3().encryption());
    assertEquals(S3Settings.ChecksumMode.WHEN_SUPPORTED, s.store().s3().checksum());
  }

  @Test
  void jitterDefaultsToAQuarterOfTheConfiguredInterval() {
    RaftProperties p = valid();
    p.set("offload.schedule.interval", "10min");
    assertEquals(Duration.ofSeconds(150), OffloadSettings.read(p).jitter());
    p.set("offload.schedule.jitter", "0s");
    assertEquals(Duration.ZERO, OffloadSettings.read(p).jitter());
  }

  @Test
  void theBandwidthIsASizePerSecondOrZeroForNoLimit() {
    RaftProperties p = valid();
    p.set("offload.upload.bandwidth", "16MB");
    assertEquals(16L * 1024 * 1024, OffloadSettings.read(p).uploadBandwidth());
    p.set("offload.upload.bandwidth", "512KB");
    assertEquals(512L * 1024, OffloadSettings.read(p).uploadBandwidth());
    p.set("offload.upload.bandwidth", "0");
    assertEquals(0, OffloadSettings.read(p).uploadBandwidth());
    OffloadConfigKeys.Upload.setBandwidth(p, org.apache.ratis.util.SizeInBytes.valueOf("1GB"));
    assertEquals(1L << 30, OffloadSettings.read(p).uploadBandwidth());
  }

  @Test
  void everyS3KeyIsRead() {
    RaftProperties p = valid();
    p.set("offload.s3.region", "eu-west-1");
    p.set("offload.s3.endpoint", "http://127.0.0.1:9000");
    p.set("offload.s3.profile", "backup");
    p.set("offload.s3.path-style", "true");
    p.set("offload.s3.sse", "aws:kms");
    p.set("offload.s3.sse.kms-key-id", "key-1");
    p.set("offload.s3.checksum", "when_required");
    S3Settings s3 = OffloadSettings.read(p).store().s3();
    assertEquals("eu-west-1", s3.region());
    assertEquals("http://127.0.0.1:9000", s3.endpoint().toString());
    assertEquals("backup", s3.profile());
    assertTrue(s3.pathStyle());
    assertEquals(S3Settings.Encryption.AWS_KMS, s3.encryption());
    assertEquals("key-1", s3.kmsKeyId());
    assertEquals(S3Settings.ChecksumMode.WHEN_REQUIRED, s3.checksum());
  }

  /** The plugin and the command line apply one rule to an endpoint, with one message (S3Settings). */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"ftp://h:1", "http://[bad", "h:9000"})
  void anEndpointIsCheckedByTheRuleTheCommandLineUses(String endpoint) {
    RaftProperties p = valid();
    p.set("offload.s3.endpoint", endpoint);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OffloadSettings.read(p));
    IllegalArgumentException rule = assertThrows(IllegalArgumentException.class,
        () -> S3Settings.parseEndpoint(endpoint));
    assertEquals("invalid offload.s3.endpoint: " + rule.getMessage(), e.getMessage());
  }

  /** The keys the drill derives from a description describe that description. */
  @Test
  void aDescriptionWrittenAsKeysIsReadBack() {
    RaftProperties p = valid();
    p.set("offload.s3.region", "eu-west-1");
    p.set("offload.s3.sse", "aws:kms");
    p.set("offload.s3.sse.kms-key-id", "key-1");
    StoreDescription read = OffloadConfigKeys.Store.description(p);
    RaftProperties written = new RaftProperties();
    written.set("offload.s3.profile", "left-over");
    OffloadConfigKeys.Store.set(written, read);
    assertEquals(read, OffloadConfigKeys.Store.description(written));
    assertEquals(null, written.get("offload.s3.profile"), "a setting at its default is cleared");
  }

  /** Credentials put in a URI are refused, and the message never repeats them. */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"offload.store.uri=s3://AKIAHOSTILE:s3cret@backups/ratis",
      "offload.s3.endpoint=http://AKIAHOSTILE:s3cret@127.0.0.1:9000"})
  void credentialsInAUriAreRefusedWithoutEchoingThem(String setting) {
    RaftProperties p = valid();
    p.set(setting.substring(0, setting.indexOf('=')), setting.substring(setting.indexOf('=') + 1));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OffloadSettings.read(p));
    assertTrue(!e.getMessage().contains("s3cret") && !e.getMessage().contains("AKIAHOSTILE"), e.getMessage());
    assertTrue(e.getMessage().contains("***@"), e.getMessage());
  }
}
