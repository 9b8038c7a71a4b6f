package dev.ratisoffload.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/** The embedded server against the real AWS SDK v2, configured the way the project's stores are. */
class EmbeddedS3Test {
  private static final String BUCKET = "backups";
  private static EmbeddedS3 s3;
  private static S3Client client;

  @BeforeAll
  static void start() throws IOException {
    s3 = EmbeddedS3.start();
    s3.createBucket(BUCKET);
    client = S3Client.builder()
        .endpointOverride(s3.endpoint())
        .forcePathStyle(true)
        .region(Region.of(s3.region()))
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
        .build();
  }

  @AfterAll
  static void stop() throws IOException {
    client.close();
    s3.close();
  }

  @Test
  void listensOnLoopback() {
    assertEquals("127.0.0.1", s3.endpoint().getHost());
    assertTrue(s3.port() > 0);
  }

  @Test
  void putGetListHeadDelete() {
    put("a/one", "first");
    put("a/two", "second");
    put("b/three", "third");

    assertEquals("second", client.getObjectAsBytes(r -> r.bucket(BUCKET).key("a/two")).asUtf8String());
    final List<String> keys = client.listObjectsV2(r -> r.bucket(BUCKET).prefix("a/")).contents()
        .stream().map(S3Object::key).toList();
    assertEquals(List.of("a/one", "a/two"), keys);
    final HeadObjectResponse head = client.headObject(r -> r.bucket(BUCKET).key("b/three"));
    assertEquals(5L, head.contentLength());

    client.deleteObject(r -> r.bucket(BUCKET).key("a/one"));
    assertThrows(NoSuchKeyException.class, () -> client.getObjectAsBytes(r -> r.bucket(BUCKET).key("a/one")));
  }

  @Test
  void ifNoneMatchStarRefusesToOverwrite() {
    final PutObjectRequest createOnly = PutObjectRequest.builder().bucket(BUCKET).key("once").ifNoneMatch("*").build();
    client.putObject(createOnly, RequestBody.fromString("original", StandardCharsets.UTF_8));

    final S3Exception e = assertThrows(S3Exception.class,
        () -> client.putObject(createOnly, RequestBody.fromString("overwrite", StandardCharsets.UTF_8)));
    assertEquals(412, e.statusCode());
    assertEquals("original", client.getObjectAsBytes(r -> r.bucket(BUCKET).key("once")).asUtf8String());
  }

  @Test
  void wrongSecretIsRejected() {
    try (S3Client intruder = S3Client.builder()
        .endpointOverride(s3.endpoint())
        .forcePathStyle(true)
        .region(Region.of(s3.region()))
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(), "wrong")))
        .build()) {
      final S3Exception e = assertThrows(S3Exception.class, () -> intruder.listObjectsV2(r -> r.bucket(BUCKET)));
      assertEquals(403, e.statusCode());
    }
  }

  @Test
  void stopRefusesConnectionsAndRestartKeepsDataAndPort() throws IOException {
    put("durable", "kept across restarts");
    final int port = s3.port();

    s3.stop();
    assertThrows(IOException.class, () -> new Socket("127.0.0.1", port).close());
    assertThrows(SdkClientException.class, () -> client.headObject(r -> r.bucket(BUCKET).key("durable")));

    s3.restart();
    assertEquals(port, s3.port());
    assertEquals("kept across restarts",
        client.getObjectAsBytes(r -> r.bucket(BUCKET).key("durable")).asUtf8String());
  }

  private static void put(String key, String body) {
    client.putObject(r -> r.bucket(BUCKET).key(key), RequestBody.fromString(body, StandardCharsets.UTF_8));
  }
}
