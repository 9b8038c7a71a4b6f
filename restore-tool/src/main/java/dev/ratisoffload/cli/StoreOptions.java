package dev.ratisoffload.cli;

import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreAccessException;
import dev.ratisoffload.store.StoreDescription;
import dev.ratisoffload.store.StoreUnavailableException;
import dev.ratisoffload.store.StoreUri;
import java.nio.file.Files;
import picocli.CommandLine.Mixin;
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
 * {@code offload.s3.*} keys, so a runbook can copy them from a node's configuration; read into the same
 * {@link StoreDescription} as the keys. Credentials come from the AWS SDK's default chain or a
 * {@code --profile}; never from a flag.
 */
public final class StoreOptions {

  @Spec(Spec.Target.MIXEE)
  private CommandSpec spec;

  @Option(names = "--store", required = true, paramLabel = "URI",
      description = "Where generations are stored: s3://bucket/prefix or file:///path "
          + "(the node's offload.store.uri).")
  String store;

  @Mixin
  S3Options s3;

  /** The store the flags describe; an invalid value is a usage error with the plugin key's rule and message. */
  public StoreDescription description() {
    try {
      return s3.describe(store);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /**
   * Opens the store. A directory store whose directory is missing is reported as unavailable: that is
   * what an unmounted volume looks like, and an empty listing would hide it. Scripts that take the same
   * flags (as a picocli {@code @Mixin}) open their store with it.
   */
  public ObjectStore open() {
    StoreDescription description = description();
    StoreUri uri = description.uri();
    if ("file".equals(uri.scheme())) {
      if (!Files.isDirectory(uri.directory())) {
        throw new StoreUnavailableException("the store directory " + uri.directory()
            + " does not exist or is not a directory (volume not mounted?)", null);
      }
      return description.open();
    }
    return description.withCredentials(credentials(description)).open();
  }

  /**
   * Finds the credentials before the first request, so that their absence reads as one clear sentence
   * instead of the SDK's account of every place it looked.
   */
  private static AwsCredentialsProvider credentials(StoreDescription description) {
    String profile = description.s3().profile();
    AwsCredentialsProvider provider = profile != null ? ProfileCredentialsProvider.create(profile)
        : DefaultCredentialsProvider.builder().build();
    try {
      provider.resolveCredentials();
    } catch (SdkException | IllegalArgumentException e) {
      throw new StoreAccessException("no AWS credentials to read " + description.uri()
          + (profile != null ? ": profile '" + profile + "' has none in the AWS config files"
              : ": set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, name a profile with --profile, or run"
                  + " where an instance or container role applies"), e);
    }
    return provider;
  }
}
