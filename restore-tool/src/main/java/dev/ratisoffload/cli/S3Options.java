package dev.ratisoffload.cli;

import dev.ratisoffload.store.StoreDescription;
import dev.ratisoffload.store.StoreDescription.Setting;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * How to reach an S3 store, in the words of the plugin's {@code offload.s3.*} keys: the flags every
 * command and script that names a store shares (through {@link StoreOptions}, or directly where the
 * store itself is optional, as in the drill). The values are checked by {@link StoreDescription}, with
 * the rules and messages of the plugin's keys.
 */
public final class S3Options {

  @Option(names = "--region", paramLabel = "REGION",
      description = "S3 region (offload.s3.region). Default: the AWS SDK's region chain.")
  String region;

  @Option(names = "--endpoint", paramLabel = "URL",
      description = "S3-compatible endpoint, an http or https URL such as http://127.0.0.1:9000 "
          + "(offload.s3.endpoint).")
  String endpoint;

  @Option(names = "--profile", paramLabel = "NAME",
      description = "Profile of the AWS config files for credentials (offload.s3.profile). "
          + "Default: the SDK's default credential chain.")
  String profile;

  @Option(names = "--path-style", arity = "0..1", paramLabel = "true|false", fallbackValue = "true",
      description = "Path-style addressing, which most S3-compatible servers need (offload.s3.path-style).")
  String pathStyle;

  @Option(names = "--sse", paramLabel = "none|AES256|aws:kms",
      description = "Server-side encryption of what is written (offload.s3.sse), default none; reading needs no "
          + "encryption setting.")
  String sse;

  @Option(names = "--sse-kms-key-id", paramLabel = "KEY",
      description = "KMS key for --sse aws:kms (offload.s3.sse.kms-key-id).")
  String kmsKeyId;

  @Option(names = "--checksum", paramLabel = "when_supported|when_required",
      description = "When the SDK sends checksums (offload.s3.checksum), default when_supported; when_required "
          + "for stores that reject checksum headers.")
  String checksum;

  /** The flag of each setting of a store description. */
  public static String flag(Setting setting) {
    return switch (setting) {
      case URI -> "--store";
      case REGION -> "--region";
      case ENDPOINT -> "--endpoint";
      case PROFILE -> "--profile";
      case PATH_STYLE -> "--path-style";
      case SSE -> "--sse";
      case SSE_KMS_KEY_ID -> "--sse-kms-key-id";
      case CHECKSUM -> "--checksum";
    };
  }

  /** The flags that describe this store to {@code offload} and the scripts, {@code --store} first. */
  public static List<String> flags(StoreDescription description) {
    List<String> flags = new ArrayList<>();
    description.text().forEach((setting, value) -> flags.addAll(List.of(flag(setting), value)));
    return flags;
  }

  /** Whether any of these flags was given. */
  public boolean isEmpty() {
    return text().isEmpty();
  }

  /**
   * The store at {@code uri} reached as these flags say.
   *
   * @throws IllegalArgumentException "invalid FLAG: " and the rule's message
   */
  public StoreDescription describe(String uri) {
    Map<Setting, String> text = text();
    text.put(Setting.URI, uri);
    return StoreDescription.parse(text, S3Options::flag);
  }

  private Map<Setting, String> text() {
    Map<Setting, String> text = new EnumMap<>(Setting.class);
    put(text, Setting.REGION, region);
    put(text, Setting.ENDPOINT, endpoint);
    put(text, Setting.PROFILE, profile);
    put(text, Setting.PATH_STYLE, pathStyle);
    put(text, Setting.SSE, sse);
    put(text, Setting.SSE_KMS_KEY_ID, kmsKeyId);
    put(text, Setting.CHECKSUM, checksum);
    return text;
  }

  private static void put(Map<Setting, String> text, Setting setting, String value) {
    if (value != null) {
      text.put(setting, value);
    }
  }
}
