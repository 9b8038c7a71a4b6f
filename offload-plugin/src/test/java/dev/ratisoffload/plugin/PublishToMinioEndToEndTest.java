package dev.ratisoffload.plugin;

import dev.ratisoffload.store.MinioBucket;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.S3ObjectStore;
import dev.ratisoffload.store.StoreUri;
import java.nio.file.Path;
import org.apache.ratis.conf.RaftProperties;
import org.testcontainers.containers.MinIOContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/** The publish contract against MinIO in a container; skipped, with that reason, where no Docker engine runs. */
@Testcontainers(disabledWithoutDocker = true)
class PublishToMinioEndToEndTest extends PublishEndToEndContract {

  @Container
  static final MinIOContainer MINIO = MinioBucket.container();

  @Override
  RaftProperties startStore(Path tmp) {
    MinioBucket.createBucket(MINIO, "backups");
    RaftProperties p = new RaftProperties();
    OffloadConfigKeys.Store.setUri(p, "s3://backups/e2e");
    OffloadConfigKeys.S3.setEndpoint(p, MINIO.getS3URL());
    OffloadConfigKeys.S3.setPathStyle(p, true);
    return p;
  }

  @Override
  ObjectStore openStore() {
    return new S3ObjectStore(StoreUri.parse("s3://backups/e2e"), MinioBucket.settings(MINIO).build());
  }

  @Override
  void stopStore() {}
}
