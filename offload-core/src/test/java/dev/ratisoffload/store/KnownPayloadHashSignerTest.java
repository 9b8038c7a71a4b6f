package dev.ratisoffload.store;

import static dev.ratisoffload.store.S3ObjectStoreTest.sha256;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.checksums.DefaultChecksumAlgorithm;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * The signer gives a request with a known payload digest exactly the headers the SDK's signer gives it
 * after reading the body, without reading the body; anything else it leaves to the SDK's signer.
 */
class KnownPayloadHashSignerTest {

  private static final AwsV4HttpSigner SDK = AwsV4HttpSigner.create();
  private final KnownPayloadHashSigner signer = new KnownPayloadHashSigner();

  /** A chunk's put as the S3 store makes it over plain HTTP, with the properties S3 signs with. */
  private static SignRequest<AwsCredentialsIdentity> put(String protocol, String key, byte[] body,
      String contentSha256, Map<String, String> extraHeaders, Instant now, ContentStreamProvider payload) {
    SdkHttpRequest.Builder http = SdkHttpRequest.builder()
        .method(SdkHttpMethod.PUT)
        .protocol(protocol)
        .host("127.0.0.1")
        .port(protocol.equals("http") ? 9000 : 9443)
        .encodedPath("/bucket/" + SdkHttpUtils.urlEncodeIgnoreSlashes(key))
        .putHeader("Host", "127.0.0.1:9000")
        .putHeader("Content-Length", Integer.toString(body.length))
        .putHeader("Content-Type", "application/octet-stream")
        .putHeader("If-None-Match", "*")
        .putHeader("x-amz-checksum-sha256", Base64.getEncoder().encodeToString(sha256(body)))
        .putHeader("x-amz-sdk-checksum-algorithm", "SHA256")
        .putHeader(KnownPayloadHashSigner.CONTENT_SHA256, contentSha256);
    extraHeaders.forEach(http::putHeader);
    return SignRequest.builder(AwsCredentialsIdentity.create("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"))
        .request(http.build())
        .payload(payload)
        .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
        .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(now, ZoneOffset.UTC))
        .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
        .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
        .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false)
        .putProperty(AwsV4HttpSigner.CHUNK_ENCODING_ENABLED, false)
        .putProperty(AwsV4HttpSigner.CHECKSUM_ALGORITHM, DefaultChecksumAlgorithm.SHA256)
        .build();
  }

  private static SignRequest<AwsCredentialsIdentity> put(String protocol, byte[] body, String contentSha256,
      ContentStreamProvider payload) {
    return put(protocol, "chunks/ab/abc", body, contentSha256, Map.of(), Instant.parse("2026-12-05T10:00:00Z"),
        payload);
  }

  @Property(tries = 200)
  void aKnownDigestIsSignedAsTheSdkSignsTheBodyItReads(@ForAll @Size(max = 4096) byte[] body,
      @ForAll("keys") String key, @ForAll("metadata") Map<String, String> metadata, @ForAll("instants") Instant now) {
    String digest = KnownPayloadHashSigner.headerValue(sha256(body));
    SignRequest<AwsCredentialsIdentity> request = put("http", key, body, digest, metadata, now,
        ContentStreamProvider.fromByteArray(body));
    SignedRequest ours = signer.sign(request);
    SignedRequest sdks = SDK.sign(request);
    assertEquals(sdks.request().headers(), ours.request().headers());
    assertEquals(sdks.request().getUri(), ours.request().getUri());
    assertEquals(digest, ours.request().firstMatchingHeader(KnownPayloadHashSigner.CONTENT_SHA256).orElseThrow());
  }

  @Test
  void theBodyIsNotReadToSignIt() {
    byte[] body = "chunk".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    ContentStreamProvider unreadable = () -> {
      throw new UncheckedIOException(new java.io.IOException("the body was read"));
    };
    SignRequest<AwsCredentialsIdentity> request = put("http", body,
        KnownPayloadHashSigner.headerValue(sha256(body)), unreadable);
    SignedRequest ours = signer.sign(request);
    assertEquals(request.request().firstMatchingHeader(KnownPayloadHashSigner.CONTENT_SHA256),
        ours.request().firstMatchingHeader(KnownPayloadHashSigner.CONTENT_SHA256));
    assertThrows(RuntimeException.class, () -> SDK.sign(request)); // the SDK's own signer reads it
  }

  /** The digest is what is signed: a wrong one gives another signature, which the store then refuses. */
  @Test
  void aWrongDigestIsSignedAsGivenAndSoDiffersFromTheSdks() {
    byte[] body = new byte[1000];
    String wrong = KnownPayloadHashSigner.headerValue(sha256(new byte[] {1}));
    SignRequest<AwsCredentialsIdentity> request = put("http", body, wrong, ContentStreamProvider.fromByteArray(body));
    SignedRequest ours = signer.sign(request);
    SignedRequest sdks = SDK.sign(request);
    assertEquals(wrong, ours.request().firstMatchingHeader(KnownPayloadHashSigner.CONTENT_SHA256).orElseThrow());
    assertNotEquals(sdks.request().firstMatchingHeader("Authorization"),
        ours.request().firstMatchingHeader("Authorization"));
  }

  /** Over HTTPS, or without a digest in the header, the SDK's signer signs (and decides what the payload is). */
  @Test
  void otherRequestsAreSignedByTheSdk() {
    byte[] body = new byte[1000];
    String digest = KnownPayloadHashSigner.headerValue(sha256(body));
    for (SignRequest<AwsCredentialsIdentity> request : List.of(
        put("https", body, digest, ContentStreamProvider.fromByteArray(body)),
        put("http", body, "UNSIGNED-PAYLOAD", ContentStreamProvider.fromByteArray(body)),
        put("http", body, digest.toUpperCase(java.util.Locale.ROOT), ContentStreamProvider.fromByteArray(body)),
        put("http", body, digest.substring(1), ContentStreamProvider.fromByteArray(body)))) {
      assertEquals(SDK.sign(request).request().headers(), signer.sign(request).request().headers());
    }
    assertEquals("UNSIGNED-PAYLOAD", signer.sign(put("https", body, digest, ContentStreamProvider.fromByteArray(body)))
        .request().firstMatchingHeader(KnownPayloadHashSigner.CONTENT_SHA256).orElseThrow());
  }

  @Provide
  Arbitrary<String> keys() {
    Arbitrary<String> segment = Arbitraries.strings().withChars("abcXYZ019-_.~ +=&%é/").ofMinLength(1).ofMaxLength(20);
    return segment.list().ofMinSize(1).ofMaxSize(4).map(parts -> String.join("/", parts));
  }

  @Provide
  Arbitrary<Map<String, String>> metadata() {
    Arbitrary<String> names = Arbitraries.strings().withChars("abcdefgh-").ofMinLength(1).ofMaxLength(10)
        .map(n -> "x-amz-meta-" + n);
    Arbitrary<String> values = Arbitraries.strings().withChars("abc XYZ 019 -_.:/").ofMaxLength(30);
    return Arbitraries.maps(names, values).ofMaxSize(3);
  }

  @Provide
  Arbitrary<Instant> instants() {
    return Arbitraries.longs().between(0, 4_102_444_800L).map(Instant::ofEpochSecond);
  }
}
