package dev.ratisoffload.cli;

import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.S3ObjectStore;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreUri;
import dev.ratisoffload.testkit.EmbeddedS3;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.ratis.protocol.RaftPeerId;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * The restore contract on S3 (S3Proxy), and from a directory store the same servers publish to in the
 * same run.
 */
class DisasterDrillTest extends RestoreEndToEndContract {

  private EmbeddedS3 s3;
  private Path directoryStore;

  @Override
  String startStore() throws IOException {
    s3 = EmbeddedS3.start();
    s3.createBucket(BUCKET);
    System.setProperty("aws.accessKeyId", s3.accessKey());
    System.setProperty("aws.secretAccessKey", s3.secretKey());
    return "s3://" + BUCKET + "/drill";
  }

  @Override
  List<String> storeFlags() {
    return List.of("--endpoint", s3.endpoint().toString(), "--path-style");
  }

  @Override
  ObjectStore openStore() {
    return new S3ObjectStore(StoreUri.parse(storeUri), S3Settings.builder()
        .endpoint(s3.endpoint()).pathStyle(true).region(s3.region())
        .credentials(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
        .build());
  }

  @Override
  List<ObjectStore> alsoPublishTo() throws IOException {
    directoryStore = Files.createDirectories(tmp.resolve("directory-store"));
    return List.of(new DirectoryObjectStore(directoryStore));
  }

  @Override
  void stopStore() throws IOException {
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void restoresFromTheDirectoryStore() throws Exception {
    Path root = tmp.resolve("from-directory");
    for (RaftPeerId peer : oldPorts.keySet()) {
      assertRestored(restore(directoryStore.toUri().toString(), List.of(),
          "--data-dir", root.resolve(peer.toString()).toString()));
    }
    startAndCheck(root, oldPorts);
  }
}
