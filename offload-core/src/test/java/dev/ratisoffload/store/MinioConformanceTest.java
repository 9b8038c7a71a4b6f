package dev.ratisoffload.store;

import java.net.URI;
import org.junit.jupiter.api.BeforeAll;
import org.testcontainers.containers.MinIOContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** The conformance check against MinIO in a container; skipped, with that reason, where no Docker engine runs. */
@Testcontainers(disabledWithoutDocker = true)
class MinioConformanceTest extends LiveStoreConformanceContract {

  @Container
  static final MinIOContainer MINIO = new MinIOContainer(ConformanceExpectations.MINIO_IMAGE);

  @BeforeAll
  static void openStore() {
    StaticCredentialsProvider credentials = StaticCredentialsProvider.create(
        AwsBasicCredentials.create(MINIO.getUserName(), MINIO.getPassword()));
    URI endpoint = URI.create(MINIO.getS3URL());
    try (S3Client admin = S3Client.builder().endpointOverride(endpoint).forcePathStyle(true)
        .region(Region.US_EAST_1).credentialsProvider(credentials).build()) {
      admin.createBucket(b -> b.bucket("conformance"));
    }
    store = new S3ObjectStore(StoreUri.parse("s3://conformance/backups"), S3Settings.builder().endpoint(endpoint)
        .pathStyle(true).credentials(credentials).build());
  }
}
