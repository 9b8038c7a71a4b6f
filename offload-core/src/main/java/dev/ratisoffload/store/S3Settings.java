package dev.ratisoffload.store;

import dev.ratisoffload.primitives.Printable;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;

/**
 * How to reach an S3-compatible store. Every field but the bucket is optional; an absent one means the
 * AWS SDK's own default (region and credential chains, virtual-hosted addressing, the bucket's default
 * encryption, checksums when supported).
 *
 * @param region the region; null for the SDK's region chain
 * @param endpoint an endpoint override for S3-compatible servers; null for AWS
 * @param profile a named profile from the AWS config files; null for the default credential chain
 * @param pathStyle path-style addressing, which most S3-compatible servers need
 * @param encryption server-side encryption of every object written
 * @param kmsKeyId the KMS key for {@link Encryption#AWS_KMS}; null for the account's default key
 * @param checksum when the SDK sends request checksums
 * @param credentials explicit credentials, taking precedence over the profile and the chain; for
 *     embedding and tests only: configuration never carries a secret
 * @param multipartThreshold objects larger than this are uploaded in parts
 * @param partSize the size of each part of a multipart upload
 */
public record S3Settings(
    String region,
    URI endpoint,
    String profile,
    boolean pathStyle,
    Encryption encryption,
    String kmsKeyId,
    ChecksumMode checksum,
    AwsCredentialsProvider credentials,
    long multipartThreshold,
    long partSize) {

  /**
   * What can be a region: the SDK's {@code Region.of} takes any non-blank string, and S3-compatible
   * servers name theirs freely (MinIO's and Ceph's {@code default}, {@code us-east-1-zone}, uppercase,
   * '_'). Refused is only what cannot travel in a request's signature: blanks, control characters and
   * other non-ASCII, '/' (it separates the signature's scope) and absurd lengths.
   */
  private static final Pattern REGION = Pattern.compile("[\\x21-\\x7e&&[^/]]{1,64}");

  /** Parts must be at least 5 MiB (but the last) for S3. */
  public static final long MIN_PART_SIZE = 5L * 1024 * 1024;

  public S3Settings {
    Objects.requireNonNull(encryption, "encryption");
    Objects.requireNonNull(checksum, "checksum");
    requireRegion(region);
    if (endpoint != null) {
      parseEndpoint(endpoint.toString());
    }
    if (kmsKeyId != null && encryption != Encryption.AWS_KMS) {
      throw new IllegalArgumentException("a KMS key id needs encryption aws:kms, not " + encryption.word());
    }
    if (partSize < MIN_PART_SIZE) {
      throw new IllegalArgumentException("part size " + partSize + " is below S3's minimum of 5 MiB");
    }
    if (multipartThreshold < partSize) {
      throw new IllegalArgumentException("multipart threshold " + multipartThreshold
          + " is below the part size " + partSize);
    }
  }

  /**
   * The endpoint of an S3-compatible server: an http or https URL with a host, and no user-info (never a
   * place for credentials), query or fragment. The plugin's {@code offload.s3.endpoint} and the CLI's
   * {@code --endpoint} both use this rule, so the same mistake gets the same message from both.
   *
   * @throws IllegalArgumentException saying what is wrong, without the user-info
   */
  public static URI parseEndpoint(String text) {
    String shown = "'" + StoreUri.withoutUserInfo(text) + "'";
    URI uri;
    try {
      uri = new URI(text);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(shown + " is not a URL: expected http://host:port or https://host");
    }
    if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new IllegalArgumentException(shown + " is not an http or https URL: expected http://host:port or"
          + " https://host");
    }
    if (uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
      throw new IllegalArgumentException(shown + " has a user, query or fragment: expected http://host:port"
          + " or https://host, with credentials from a profile or the environment");
    }
    return uri;
  }

  /**
   * Null (the SDK's region chain) or a region name ({@link #REGION}). The plugin's
   * {@code offload.s3.region} and the CLI's {@code --region} both use this rule and its message.
   *
   * @throws IllegalArgumentException saying what is wrong
   */
  public static String requireRegion(String region) {
    if (region != null && !REGION.matcher(region).matches()) {
      throw new IllegalArgumentException("'" + Printable.excerpt(region) + "' is not a region name:"
          + " expected 1-64 ASCII characters without blanks or '/', such as us-east-1");
    }
    return region;
  }

  /** The same settings with explicit credentials, found by the caller before the first request. */
  public S3Settings withCredentials(AwsCredentialsProvider provider) {
    return new S3Settings(region, endpoint, profile, pathStyle, encryption, kmsKeyId, checksum, provider,
        multipartThreshold, partSize);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builds settings field by field; what is not set keeps the SDK's default. */
  public static final class Builder {
    private String region;
    private URI endpoint;
    private String profile;
    private boolean pathStyle;
    private Encryption encryption = Encryption.NONE;
    private String kmsKeyId;
    private ChecksumMode checksum = ChecksumMode.WHEN_SUPPORTED;
    private AwsCredentialsProvider credentials;
    private long multipartThreshold = 64L * 1024 * 1024;
    private long partSize = 16L * 1024 * 1024;

    public Builder region(String value) {
      region = value;
      return this;
    }

    public Builder endpoint(URI value) {
      endpoint = value;
      return this;
    }

    public Builder profile(String value) {
      profile = value;
      return this;
    }

    public Builder pathStyle(boolean value) {
      pathStyle = value;
      return this;
    }

    public Builder encryption(Encryption value, String keyId) {
      encryption = value;
      kmsKeyId = keyId;
      return this;
    }

    public Builder checksum(ChecksumMode value) {
      checksum = value;
      return this;
    }

    public Builder credentials(AwsCredentialsProvider value) {
      credentials = value;
      return this;
    }

    public Builder multipart(long threshold, long part) {
      multipartThreshold = threshold;
      partSize = part;
      return this;
    }

    public S3Settings build() {
      return new S3Settings(region, endpoint, profile, pathStyle, encryption, kmsKeyId, checksum,
          credentials, multipartThreshold, partSize);
    }
  }

  /** Server-side encryption, by the words the configuration uses. */
  public enum Encryption {
    /** The bucket's default encryption. */
    NONE("none"),
    AES256("AES256"),
    AWS_KMS("aws:kms");

    private final String word;

    Encryption(String word) {
      this.word = word;
    }

    public String word() {
      return word;
    }

    public static Encryption parse(String text) {
      for (Encryption e : values()) {
        if (e.word.equals(text)) {
          return e;
        }
      }
      throw new IllegalArgumentException("unknown encryption '" + Printable.excerpt(text)
          + "': expected none, AES256 or aws:kms");
    }
  }

  /** When request checksums are sent, for stores that reject the SDK's checksum headers. */
  public enum ChecksumMode {
    WHEN_SUPPORTED,
    WHEN_REQUIRED;

    public String word() {
      return name().toLowerCase(Locale.ROOT);
    }

    public static ChecksumMode parse(String text) {
      for (ChecksumMode m : values()) {
        if (m.word().equals(text)) {
          return m;
        }
      }
      throw new IllegalArgumentException("unknown checksum mode '" + Printable.excerpt(text)
          + "': expected when_supported or when_required");
    }
  }
}
