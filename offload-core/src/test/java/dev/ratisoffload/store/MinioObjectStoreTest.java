package dev.ratisoffload.store;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.testcontainers.containers.MinIOContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/** The store contract against MinIO in a container; skipped, with that reason, where no Docker engine runs. */
@Testcontainers(disabledWithoutDocker = true)
class MinioObjectStoreTest extends ObjectStoreContract {

  @Container
  static final MinIOContainer MINIO = MinioBucket.container();

  private static S3ObjectStore store;

  @BeforeAll
  static void openStore() {
    MinioBucket.createBucket(MINIO, "contract");
    store = new S3ObjectStore(StoreUri.parse("s3://contract/some/prefix"), MinioBucket.settings(MINIO).build());
  }

  @AfterAll
  static void closeStore() {
    store.close();
  }

  @Override
  ObjectStore store() {
    return store;
  }
}
