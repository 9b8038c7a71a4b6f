package dev.ratisoffload.store;

import org.junit.jupiter.api.BeforeAll;
import org.testcontainers.containers.MinIOContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/** The conformance check against MinIO in a container; skipped, with that reason, where no Docker engine runs. */
@Testcontainers(disabledWithoutDocker = true)
class MinioConformanceTest extends LiveStoreConformanceContract {

  @Container
  static final MinIOContainer MINIO = MinioBucket.container();

  @BeforeAll
  static void openStore() {
    MinioBucket.createBucket(MINIO, "conformance");
    store = new S3ObjectStore(StoreUri.parse("s3://conformance/backups"), MinioBucket.settings(MINIO).build());
  }
}
