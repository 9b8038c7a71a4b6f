package dev.ratisoffload.store;

import dev.ratisoffload.primitives.Printable;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;

/**
 * Where generations are stored and how to reach them. The plugin's keys, the command line's flags, the
 * drill and the scripts each translate their words into this one description, so one set of rules
 * decides what is valid and every entry point reports a mistake with the same message.
 *
 * @param uri where generations live
 * @param s3 how to reach an S3 store; ignored for a directory
 */
public record StoreDescription(StoreUri uri, S3Settings s3) {

  /** What a user writes to describe a store, each by a key or flag of its entry point. */
  public enum Setting { URI, REGION, ENDPOINT, PROFILE, PATH_STYLE, SSE, SSE_KMS_KEY_ID, CHECKSUM }

  public StoreDescription {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(s3, "s3");
  }

  /**
   * Reads a description from what a user wrote, as written (a blank is refused where a rule does not
   * take it: trimming would hide control characters); an absent or empty setting keeps its default.
   *
   * @param text each setting as written
   * @param names what the entry point calls each setting (a key, a flag), for the message
   * @throws IllegalArgumentException "invalid NAME: " and the rule's message, naming the first setting
   *     that is wrong and never repeating credentials put in a URL
   */
  public static StoreDescription parse(Map<Setting, String> text, Function<Setting, String> names) {
    Function<Setting, String> value = s -> {
      String v = text.get(s);
      return v == null || v.isEmpty() ? null : v;
    };
    StoreUri uri = check(names, Setting.URI, () -> StoreUri.parse(value.apply(Setting.URI)));
    S3Settings.Builder s3 = S3Settings.builder()
        .region(check(names, Setting.REGION, () -> S3Settings.requireRegion(value.apply(Setting.REGION))))
        .profile(value.apply(Setting.PROFILE))
        .pathStyle(check(names, Setting.PATH_STYLE, () -> parseBoolean(value.apply(Setting.PATH_STYLE))));
    String endpoint = value.apply(Setting.ENDPOINT);
    if (endpoint != null) {
      s3.endpoint(check(names, Setting.ENDPOINT, () -> S3Settings.parseEndpoint(endpoint)));
    }
    String sse = value.apply(Setting.SSE);
    S3Settings.Encryption encryption = sse == null ? S3Settings.Encryption.NONE
        : check(names, Setting.SSE, () -> S3Settings.Encryption.parse(sse));
    String kmsKeyId = value.apply(Setting.SSE_KMS_KEY_ID);
    if (kmsKeyId != null && encryption != S3Settings.Encryption.AWS_KMS) {
      throw invalid(names, Setting.SSE_KMS_KEY_ID, "the KMS key '" + Printable.excerpt(kmsKeyId)
          + "' needs " + names.apply(Setting.SSE) + " aws:kms, not "
          + encryption.word());
    }
    String checksum = value.apply(Setting.CHECKSUM);
    s3.encryption(encryption, kmsKeyId).checksum(checksum == null ? S3Settings.ChecksumMode.WHEN_SUPPORTED
        : check(names, Setting.CHECKSUM, () -> S3Settings.ChecksumMode.parse(checksum)));
    return new StoreDescription(uri, s3.build());
  }

  /**
   * What a user writes for this description: every setting that differs from its default, so that
   * {@link #parse} of it gives this description back (without {@link S3Settings#credentials()}).
   */
  public Map<Setting, String> text() {
    Map<Setting, String> text = new EnumMap<>(Setting.class);
    text.put(Setting.URI, uri.toString());
    putIfSet(text, Setting.REGION, s3.region());
    putIfSet(text, Setting.ENDPOINT, s3.endpoint() == null ? null : s3.endpoint().toString());
    putIfSet(text, Setting.PROFILE, s3.profile());
    putIfSet(text, Setting.PATH_STYLE, s3.pathStyle() ? "true" : null);
    putIfSet(text, Setting.SSE, s3.encryption() == S3Settings.Encryption.NONE ? null : s3.encryption().word());
    putIfSet(text, Setting.SSE_KMS_KEY_ID, s3.kmsKeyId());
    putIfSet(text, Setting.CHECKSUM,
        s3.checksum() == S3Settings.ChecksumMode.WHEN_SUPPORTED ? null : s3.checksum().word());
    return Collections.unmodifiableMap(text);
  }

  /** The same store reached the same way, under another URI (such as a prefix of its own). */
  public StoreDescription at(StoreUri other) {
    return new StoreDescription(other, s3);
  }

  /** The same description with explicit credentials, found by the caller before the first request. */
  public StoreDescription withCredentials(AwsCredentialsProvider credentials) {
    return new StoreDescription(uri, s3.withCredentials(credentials));
  }

  /** Opens the store: a directory for {@code file:}, S3 for {@code s3:}; the caller closes it. */
  public ObjectStore open() {
    return Stores.open(uri, s3);
  }

  @Override
  public String toString() {
    return uri + (s3.endpoint() != null && "s3".equals(uri.scheme()) ? " at " + s3.endpoint() : "");
  }

  private static boolean parseBoolean(String text) {
    if (text == null || text.equalsIgnoreCase("false")) {
      return false;
    }
    if (text.equalsIgnoreCase("true")) {
      return true;
    }
    throw new IllegalArgumentException("'" + Printable.excerpt(text)
        + "' is not true or false");
  }

  private static void putIfSet(Map<Setting, String> text, Setting setting, String value) {
    if (value != null) {
      text.put(setting, value);
    }
  }

  private static <T> T check(Function<Setting, String> names, Setting setting, Supplier<T> rule) {
    try {
      return rule.get();
    } catch (IllegalArgumentException e) {
      throw invalid(names, setting, e.getMessage());
    }
  }

  private static IllegalArgumentException invalid(Function<Setting, String> names, Setting setting, String why) {
    return new IllegalArgumentException("invalid " + names.apply(setting) + ": " + why);
  }
}
