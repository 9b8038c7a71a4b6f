package dev.ratisoffload.cli;

import dev.ratisoffload.store.MinioBucket;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.S3ObjectStore;
import dev.ratisoffload.store.StoreUri;
import java.util.List;
import org.testcontainers.containers.MinIOContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/** The restore contract on MinIO in a container; skipped, with that reason, where no Docker engine runs. */
@Testcontainers(disabledWithoutDocker = true)
class RestoreFromMinioEndToEndTest extends RestoreEndToEndContract {

  @Container
  static final MinIOContainer MINIO = MinioBucket.container();

  @Override
  String startStore() {
    MinioBucket.createBucket(MINIO, BUCKET);
    System.setProperty("aws.accessKeyId", MINIO.getUserName());
    System.setProperty("aws.secretAccessKey", MINIO.getPassword());
    return "s3://" + BUCKET + "/drill";
  }

  @Override
  List<String> storeFlags() {
    return List.of("--endpoint", MINIO.getS3URL(), "--path-style", "--region", "us-east-1");
  }

  @Override
  ObjectStore openStore() {
    return new S3ObjectStore(StoreUri.parse(storeUri), MinioBucket.settings(MINIO).build());
  }

  @Override
  void stopStore() {}
}
