package dev.ratisoffload.plugin;

import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.S3ObjectStore;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreUri;
import dev.ratisoffload.testkit.EmbeddedS3;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.ratis.conf.RaftProperties;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

class PublishToS3EndToEndTest extends PublishEndToEndContract {

  private EmbeddedS3 s3;

  @Override
  RaftProperties startStore(Path tmp) throws IOException {
    s3 = EmbeddedS3.start();
    s3.createBucket("backups");
    RaftProperties p = new RaftProperties();
    OffloadConfigKeys.Store.setUri(p, "s3://backups/e2e");
    OffloadConfigKeys.S3.setEndpoint(p, s3.endpoint().toString());
    OffloadConfigKeys.S3.setPathStyle(p, true);
    return p;
  }

  @Override
  ObjectStore openStore() {
    return new S3ObjectStore(StoreUri.parse("s3://backups/e2e"), S3Settings.builder()
        .endpoint(s3.endpoint()).pathStyle(true).region(s3.region())
        .credentials(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
        .build());
  }

  @Override
  void stopStore() throws IOException {
    s3.close();
  }
}
