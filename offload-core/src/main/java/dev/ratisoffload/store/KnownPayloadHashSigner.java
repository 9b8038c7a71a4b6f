package dev.ratisoffload.store;

import java.time.Clock;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.checksums.spi.ChecksumAlgorithm;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.internal.signer.CredentialScope;
import software.amazon.awssdk.http.auth.aws.internal.signer.V4Properties;
import software.amazon.awssdk.http.auth.aws.internal.signer.V4RequestSigner;
import software.amazon.awssdk.http.auth.aws.internal.signer.util.ChecksumUtil;
import software.amazon.awssdk.http.auth.aws.internal.signer.util.CredentialUtils;
import software.amazon.awssdk.http.auth.aws.scheme.AwsV4AuthScheme;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignRequest;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignedRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;
import software.amazon.awssdk.identity.spi.IdentityProviders;

/**
 * The SDK's SigV4 signer, except that a request whose body's SHA-256 the caller already knows is signed
 * with that digest instead of one computed by reading the body again.
 *
 * <p>Over plain HTTP the SDK signs every request body: it reads the whole body and computes its SHA-256
 * for {@code x-amz-content-sha256}, whatever its payload-signing setting says. A chunk's key is that
 * very SHA-256, so the store puts it in that header ({@link #CONTENT_SHA256}) and this signer signs the
 * request with it, as the SDK would have: the signature and what the store checks are the same (a store
 * that receives other bytes refuses them, {@code XAmzContentSHA256Mismatch}); one digest of every
 * uploaded byte and one read of the body are saved. Every other request, and every request over HTTPS
 * (where the SDK sends {@code UNSIGNED-PAYLOAD} and replaces the header), goes to the SDK's signer.
 *
 * <p>It builds on the SDK's own request signer ({@code V4RequestSigner}, which takes the payload's digest
 * from that header) and the SDK's rules for when a payload is signed; these are internal classes, so
 * {@code KnownPayloadHashSignerTest} compares this signer's output with the SDK signer's for the same
 * requests, and an SDK upgrade that changes either shows there.
 */
final class KnownPayloadHashSigner implements AwsV4HttpSigner {

  /** The header SigV4 signs the payload's SHA-256 in (lower-case hex). */
  static final String CONTENT_SHA256 = "x-amz-content-sha256";

  private final AwsV4HttpSigner sdk = AwsV4HttpSigner.create();

  /** The SigV4 auth scheme of an S3 client, with this signer. */
  static AwsV4AuthScheme authScheme() {
    KnownPayloadHashSigner signer = new KnownPayloadHashSigner();
    return new AwsV4AuthScheme() {
      @Override
      public String schemeId() {
        return AwsV4AuthScheme.SCHEME_ID;
      }

      @Override
      public IdentityProvider<AwsCredentialsIdentity> identityProvider(IdentityProviders providers) {
        return providers.identityProvider(AwsCredentialsIdentity.class);
      }

      @Override
      public AwsV4HttpSigner signer() {
        return signer;
      }
    };
  }

  @Override
  public SignedRequest sign(SignRequest<? extends AwsCredentialsIdentity> request) {
    Optional<String> known = knownDigest(request);
    if (known.isEmpty()) {
      return sdk.sign(request);
    }
    Clock clock = request.requireProperty(SIGNING_CLOCK, Clock.systemUTC());
    V4Properties properties = V4Properties.builder()
        .credentials(CredentialUtils.sanitizeCredentials(request.identity()))
        .credentialScope(new CredentialScope(request.requireProperty(REGION_NAME),
            request.requireProperty(SERVICE_SIGNING_NAME), clock.instant()))
        .signingClock(clock)
        .doubleUrlEncode(request.requireProperty(DOUBLE_URL_ENCODE, true))
        .normalizePath(request.requireProperty(NORMALIZE_PATH, true))
        .build();
    SdkHttpRequest.Builder signed = request.request().toBuilder();
    signed.putHeader(CONTENT_SHA256, known.get());
    return SignedRequest.builder()
        .request(V4RequestSigner.header(properties).sign(signed).getSignedRequest().build())
        .payload(request.payload().orElse(null))
        .build();
  }

  /**
   * The digest the caller put in {@link #CONTENT_SHA256}, when the SDK would otherwise compute it: the
   * payload is signed (plain HTTP), sent whole (not in {@code aws-chunked} frames), authenticated, in
   * the header, and nothing else asks for a checksum the SDK computes while reading the body.
   */
  private static Optional<String> knownDigest(SignRequest<? extends AwsCredentialsIdentity> request) {
    SdkHttpRequest http = request.request();
    if ("https".equals(http.protocol())
        || request.requireProperty(CHUNK_ENCODING_ENABLED, false)
        || request.requireProperty(AUTH_LOCATION, AuthLocation.HEADER) != AuthLocation.HEADER
        || request.hasProperty(EXPIRATION_DURATION)
        || flexibleChecksum(request)
        || http.firstMatchingHeader("x-amz-trailer").isPresent()
        || CredentialUtils.isAnonymous(request.identity())) {
      return Optional.empty();
    }
    return http.firstMatchingHeader(CONTENT_SHA256).filter(KnownPayloadHashSigner::isSha256Hex);
  }

  /** A checksum the SDK would compute while reading the body (the caller did not put it in its header). */
  private static boolean flexibleChecksum(SignRequest<? extends AwsCredentialsIdentity> request) {
    ChecksumAlgorithm algorithm = request.property(CHECKSUM_ALGORITHM);
    return algorithm != null
        && request.request().firstMatchingHeader(ChecksumUtil.checksumHeaderName(algorithm)).isEmpty();
  }

  static boolean isSha256Hex(String value) {
    if (value.length() != 64) {
      return false;
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
  }

  /** The header's value for a body whose SHA-256 is {@code digest}. */
  static String headerValue(byte[] digest) {
    return HexFormat.of().formatHex(digest);
  }

  @Override
  public CompletableFuture<AsyncSignedRequest> signAsync(AsyncSignRequest<? extends AwsCredentialsIdentity> request) {
    return sdk.signAsync(request);
  }
}
