package dev.ratisoffload.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The one set of rules every entry point's store settings go through. */
class StoreDescriptionTest {

  /** How a test entry point names each setting: "<SETTING>". */
  private static final Function<StoreDescription.Setting, String> NAMES = s -> "<" + s + ">";

  private static Map<StoreDescription.Setting, String> text(String uri) {
    Map<StoreDescription.Setting, String> text = new EnumMap<>(StoreDescription.Setting.class);
    text.put(StoreDescription.Setting.URI, uri);
    return text;
  }

  @Test
  void everySettingIsReadAndWrittenBackAsText() {
    Map<StoreDescription.Setting, String> text = text("s3://backups/ratis");
    text.put(StoreDescription.Setting.REGION, "eu-west-1");
    text.put(StoreDescription.Setting.ENDPOINT, "https://s3.example.com:9000");
    text.put(StoreDescription.Setting.PROFILE, "backup");
    text.put(StoreDescription.Setting.PATH_STYLE, "true");
    text.put(StoreDescription.Setting.SSE, "aws:kms");
    text.put(StoreDescription.Setting.SSE_KMS_KEY_ID, "key-1");
    text.put(StoreDescription.Setting.CHECKSUM, "when_required");
    StoreDescription d = StoreDescription.parse(text, NAMES);
    assertEquals("backups", d.uri().bucket());
    assertEquals("eu-west-1", d.s3().region());
    assertEquals("https://s3.example.com:9000", d.s3().endpoint().toString());
    assertEquals("backup", d.s3().profile());
    assertTrue(d.s3().pathStyle());
    assertEquals(S3Settings.Encryption.AWS_KMS, d.s3().encryption());
    assertEquals("key-1", d.s3().kmsKeyId());
    assertEquals(S3Settings.ChecksumMode.WHEN_REQUIRED, d.s3().checksum());
    assertEquals(text, d.text());
  }

  @Test
  void unsetAndEmptySettingsKeepTheSdkDefaults() {
    Map<StoreDescription.Setting, String> text = text("file:///var/backups");
    text.put(StoreDescription.Setting.REGION, "");
    StoreDescription d = StoreDescription.parse(text, NAMES);
    assertEquals(S3Settings.builder().build(), d.s3());
    assertEquals(java.util.Set.of(StoreDescription.Setting.URI), d.text().keySet());
  }

  /** The endpoint rule is S3Settings's, with its message, after the entry point's name for the setting. */
  @ParameterizedTest
  @ValueSource(strings = {"ftp://h:1", "file:///tmp", "h:9000", "http://[bad", "http://h:1/?x=1", "//h:1"})
  void anEndpointThatIsNotHttpIsRefusedByTheOneRule(String endpoint) {
    Map<StoreDescription.Setting, String> text = text("s3://backups/ratis");
    text.put(StoreDescription.Setting.ENDPOINT, endpoint);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> StoreDescription.parse(text, NAMES));
    IllegalArgumentException rule = assertThrows(IllegalArgumentException.class,
        () -> S3Settings.parseEndpoint(endpoint));
    assertEquals("invalid <ENDPOINT>: " + rule.getMessage(), e.getMessage());
  }

  @Test
  void aKmsKeyWithoutKmsEncryptionNamesBothSettings() {
    Map<StoreDescription.Setting, String> text = text("s3://backups/ratis");
    text.put(StoreDescription.Setting.SSE_KMS_KEY_ID, "key-1");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> StoreDescription.parse(text, NAMES));
    assertEquals("invalid <SSE_KMS_KEY_ID>: the KMS key 'key-1' needs <SSE> aws:kms, not none", e.getMessage());
  }

  /**
   * Whatever a user writes, the description is either valid and written back to the same description,
   * or refused with a message that names the setting, shows no control character and no credential.
   */
  @Property(tries = 2000)
  void hostileTextIsReadOrRefusedInOneLineWithoutSecrets(
      @ForAll("settings") Map<StoreDescription.Setting, String> text) {
    StoreDescription d;
    try {
      d = StoreDescription.parse(text, NAMES);
    } catch (IllegalArgumentException e) {
      String message = e.getMessage();
      assertTrue(message.matches("invalid <[A-Z_]+>: .+"), message);
      assertFalse(message.chars().anyMatch(Character::isISOControl), message);
      assertFalse(message.contains(SECRET), message);
      return;
    }
    assertEquals(d, StoreDescription.parse(d.text(), NAMES), d::toString);
    if (d.s3().endpoint() != null) {
      assertTrue(d.s3().endpoint().getScheme().matches("https?"), d.s3().endpoint()::toString);
      assertEquals(null, d.s3().endpoint().getUserInfo());
    }
  }

  private static final String SECRET = "wJalrXUtnFEMIK7MDENG";

  /** One time in five any text, else one of the values (null: absent). */
  private static Arbitrary<String> mostly(Arbitrary<String> any, String... values) {
    return Arbitraries.frequencyOf(Tuple.of(1, any), Tuple.of(4, Arbitraries.of(values)));
  }

  /**
   * Each setting is mostly valid (or absent), so that the hostile text of any one setting is often the
   * first mistake, the one reported.
   */
  @Provide
  Arbitrary<Map<StoreDescription.Setting, String>> settings() {
    Arbitrary<String> any = Arbitraries.strings().all().ofMaxLength(40);
    Arbitrary<String> word = Arbitraries.strings().withChars("abcz09.-_/:@%?#[] \u0000\u001b\u00e9").ofMaxLength(20);
    Arbitrary<String> uri = Arbitraries.frequencyOf(Tuple.of(1, any),
        Tuple.of(1, word.map(w -> "s3://" + w)), Tuple.of(1, word.map(w -> "file:///" + w)),
        Tuple.of(1, word.map(w -> "s3://backups/" + w)), Tuple.of(1, word.map(w -> "s3://key:" + SECRET + "@" + w)),
        Tuple.of(8, Arbitraries.just("s3://backups/ratis")));
    Arbitrary<String> endpoint = Arbitraries.frequencyOf(Tuple.of(1, any), Tuple.of(1, word.map(w -> "http://" + w)),
        Tuple.of(1, word.map(w -> "https://" + w)), Tuple.of(1, word.map(w -> "http://key:" + SECRET + "@" + w)),
        Tuple.of(1, word.map(w -> "ftp://" + w)), Tuple.of(5, Arbitraries.just(null)),
        Tuple.of(5, Arbitraries.just("http://127.0.0.1:9000")));
    Arbitrary<String> region = mostly(any, null, "us-east-1");
    Arbitrary<String> pathStyle = mostly(any, null, "true", "FALSE", "yes");
    Arbitrary<String> sse = mostly(any, null, "none", "AES256", "aws:kms");
    Arbitrary<String> kms = Arbitraries.frequencyOf(Tuple.of(1, word), Tuple.of(4, Arbitraries.just(null)));
    Arbitrary<String> checksum = mostly(any, null, "when_supported", "when_required");
    return Combinators.combine(uri, endpoint, region, pathStyle, sse, kms, checksum)
        .as((u, e, r, p, s, k, c) -> {
          Map<StoreDescription.Setting, String> text = text(u);
          text.put(StoreDescription.Setting.ENDPOINT, e);
          text.put(StoreDescription.Setting.REGION, r);
          text.put(StoreDescription.Setting.PATH_STYLE, p);
          text.put(StoreDescription.Setting.SSE, s);
          text.put(StoreDescription.Setting.SSE_KMS_KEY_ID, k);
          text.put(StoreDescription.Setting.CHECKSUM, c);
          return text;
        });
  }
}
