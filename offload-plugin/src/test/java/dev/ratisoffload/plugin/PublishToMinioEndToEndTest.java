package dev.ratisoffload.plugin;

import dev.ratisoffload.store.ConformanceExpectations;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.S3ObjectStore;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreUri;
import java.net.URI;
import java.nio.file.Path;
import org.apache.ratis.conf.RaftProperties;
import org.testcontainers.containers.MinIOContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** The publish contract against MinIO in a container; skipped, with that reason, where no Docker engine runs. */
@Testcontainers(disabledWithoutDocker = true)
class PublishToMinioEndToEndTest extends PublishEndToEndContract {

  @Container
  static final MinIOContainer MINIO = new MinIOContainer(ConformanceExpectations.MINIO_IMAGE);

  private S3Settings settings() {
    return S3Settings.builder().endpoint(URI.create(MINIO.getS3URL())).pathStyle(true).region("us-east-1")
        .credentials(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(MINIO.getUserName(), MINIO.getPassword())))
        .build();
  }

  @Override
  RaftProperties startStore(Path tmp) {
    S3Settings s3 = settings();
    try (S3Client admin = S3Client.builder().endpointOverride(s3.endpoint()).forcePathStyle(true)
        .region(Region.US_EAST_1).credentialsProvider(s3.credentials()).build()) {
      admin.createBucket(b -> b.bucket("backups"));
    }
    RaftProperties p = new RaftProperties();
    OffloadConfigKeys.Store.setUri(p, "s3://backups/e2e");
    OffloadConfigKeys.S3.setEndpoint(p, MINIO.getS3URL());
    OffloadConfigKeys.S3.setPathStyle(p, true);
    return p;
  }

  @Override
  ObjectStore openStore() {
    return new S3ObjectStore(StoreUri.parse("s3://backups/e2e"), settings());
  }

  @Override
  void stopStore() {}
}
