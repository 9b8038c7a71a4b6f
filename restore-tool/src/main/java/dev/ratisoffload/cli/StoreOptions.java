package dev.ratisoffload.cli;

import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreAccessException;
import dev.ratisoffload.store.StoreUnavailableException;
import dev.ratisoffload.store.StoreUri;
import dev.ratisoffload.store.Stores;
import java.nio.file.Files;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * Where generations are stored, in the words of the plugin's {@code offload.store.uri} and
 * {@code offload.s3.*} keys, so a runbook can copy them from a node's configuration. Credentials come
 * from the AWS SDK's default chain or a {@code --profile}; never from a flag.
 */
public final class StoreOptions {

  @Spec(Spec.Target.MIXEE)
  private CommandSpec spec;

  @Option(names = "--store", required = true, paramLabel = "URI",
      description = "Where generations are stored: s3://bucket/prefix or file:///path "
          + "(the node's offload.store.uri).")
  String store;

  @Option(names = "--region", paramLabel = "REGION",
      description = "S3 region (offload.s3.region). Default: the AWS SDK's region chain.")
  String region;

  @Option(names = "--endpoint", paramLabel = "URL",
      description = "S3-compatible endpoint, e.g. http://127.0.0.1:9000 (offload.s3.endpoint).")
  String endpoint;

  @Option(names = "--profile", paramLabel = "NAME",
      description = "Profile of the AWS config files for credentials (offload.s3.profile). "
          + "Default: the SDK's default credential chain.")
  String profile;

  @Option(names = "--path-style", arity = "0..1", paramLabel = "true|false", fallbackValue = "true",
      description = "Path-style addressing, which most S3-compatible servers need (offload.s3.path-style).")
  boolean pathStyle;

  @Option(names = "--sse", paramLabel = "none|AES256|aws:kms", defaultValue = "none",
      description = "Server-side encryption (offload.s3.sse). Accepted so that a runbook can copy the "
          + "node's settings; reading needs no encryption setting.")
  String sse;

  @Option(names = "--sse-kms-key-id", paramLabel = "KEY",
      description = "KMS key for --sse aws:kms (offload.s3.sse.kms-key-id).")
  String kmsKeyId;

  @Option(names = "--checksum", paramLabel = "when_supported|when_required", defaultValue = "when_supported",
      description = "When the SDK sends checksums (offload.s3.checksum); when_required for stores that "
          + "reject checksum headers.")
  String checksum;

  /** The parsed URI; a malformed one is a usage error. */
  StoreUri uri() {
    try {
      return StoreUri.parse(store);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--store: " + e.getMessage());
    }
  }

  /** The S3 settings the flags describe; an invalid combination is a usage error. */
  S3Settings s3Settings() {
    try {
      S3Settings.Builder builder = S3Settings.builder()
          .region(flag("--region", () -> S3Settings.requireRegion(region)))
          .profile(profile)
          .pathStyle(pathStyle)
          .encryption(S3Settings.Encryption.parse(sse), kmsKeyId)
          .checksum(S3Settings.ChecksumMode.parse(checksum));
      if (endpoint != null) {
        builder.endpoint(flag("--endpoint", () -> S3Settings.parseEndpoint(endpoint)));
      }
      return builder.build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /** The value, or a usage error naming the flag with the rule's message (the plugin's for its key). */
  private static <T> T flag(String name, Supplier<T> value) {
    try {
      return value.get();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(name + " " + e.getMessage(), e);
    }
  }

  /**
   * Opens the store. A directory store whose directory is missing is reported as unavailable: that is
   * what an unmounted volume looks like, and an empty listing would hide it. Scripts that take the same
   * flags (as a picocli {@code @Mixin}) open their store with it.
   */
  public ObjectStore open() {
    StoreUri uri = uri();
    S3Settings settings = s3Settings();
    if ("file".equals(uri.scheme())) {
      if (!Files.isDirectory(uri.directory())) {
        throw new StoreUnavailableException("the store directory " + uri.directory()
            + " does not exist or is not a directory (volume not mounted?)", null);
      }
      return new DirectoryObjectStore(uri.directory());
    }
    return Stores.open(uri, withCredentials(settings, uri));
  }

  /**
   * Finds the credentials before the first request, so that their absence reads as one clear sentence
   * instead of the SDK's account of every place it looked.
   */
  private S3Settings withCredentials(S3Settings settings, StoreUri uri) {
    AwsCredentialsProvider provider = profile != null ? ProfileCredentialsProvider.create(profile)
        : DefaultCredentialsProvider.builder().build();
    try {
      provider.resolveCredentials();
    } catch (SdkException | IllegalArgumentException e) {
      throw new StoreAccessException("no AWS credentials to read " + uri
          + (profile != null ? ": profile '" + profile + "' has none in the AWS config files"
              : ": set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, name a profile with --profile, or run"
                  + " where an instance or container role applies"), e);
    }
    return new S3Settings(settings.region(), settings.endpoint(), settings.profile(), settings.pathStyle(),
        settings.encryption(), settings.kmsKeyId(), settings.checksum(), provider,
        settings.multipartThreshold(), settings.partSize());
  }
}
