package dev.ratisoffload.store;

import java.net.URI;
import org.testcontainers.containers.MinIOContainer;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * MinIO in a container for the tests of every module that run a contract on it: one image, one way to
 * reach it. Tests declare {@link #container()} as a static {@code @Container} of a class annotated
 * {@code @Testcontainers(disabledWithoutDocker = true)}, so that without a Docker engine they are skipped
 * with that reason before anything is started.
 */
public final class MinioBucket {

  private MinioBucket() {}

  /** A MinIO container of the image whose behaviour {@link ConformanceExpectations} records. */
  public static MinIOContainer container() {
    return new MinIOContainer(ConformanceExpectations.MINIO_IMAGE);
  }

  /** Settings that reach the started container with its root credentials. */
  public static S3Settings.Builder settings(MinIOContainer minio) {
    return S3Settings.builder().endpoint(URI.create(minio.getS3URL())).pathStyle(true).region("us-east-1")
        .credentials(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(minio.getUserName(), minio.getPassword())));
  }

  /** Creates {@code bucket} in the started container. */
  public static void createBucket(MinIOContainer minio, String bucket) {
    S3Settings s3 = settings(minio).build();
    try (S3Client admin = S3Client.builder().endpointOverride(s3.endpoint()).forcePathStyle(true)
        .region(Region.US_EAST_1).credentialsProvider(s3.credentials()).build()) {
      admin.createBucket(b -> b.bucket(bucket));
    }
  }
}
