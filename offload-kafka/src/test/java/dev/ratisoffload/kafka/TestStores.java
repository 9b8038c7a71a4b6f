package dev.ratisoffload.kafka;

import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.S3ObjectStore;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreUri;
import dev.ratisoffload.testkit.EmbeddedS3;
import java.nio.file.Path;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/** The real stores the Kafka backup is tested against. */
public final class TestStores {

  private TestStores() {}

  public static ObjectStore directory(Path dir) {
    return new DirectoryObjectStore(dir);
  }

  public static S3Settings s3Settings(EmbeddedS3 s3) {
    return S3Settings.builder().endpoint(s3.endpoint()).pathStyle(true).region(s3.region())
        .credentials(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
        .build();
  }

  public static ObjectStore s3(EmbeddedS3 s3, String bucketAndPrefix) {
    return new S3ObjectStore(StoreUri.parse("s3://" + bucketAndPrefix), s3Settings(s3));
  }
}
