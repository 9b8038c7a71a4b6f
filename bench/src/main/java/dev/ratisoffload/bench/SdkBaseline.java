package dev.ratisoffload.bench;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.transfer.s3.S3TransferManager;
import software.amazon.awssdk.transfer.s3.model.DownloadFileRequest;
import software.amazon.awssdk.transfer.s3.model.UploadFileRequest;

/**
 * The baseline, in its own JVM: the AWS SDK's transfer manager over the Java-based S3 async client with
 * parallel multipart transfers enabled (the SDK's defaults otherwise), moving the same files with no
 * hashing, chunking or verification of its own.
 *
 * <p>Commands: {@code upload <bucket> <dir>} uploads every file under the directory but Ratis's
 * {@code .md5} sidecars; {@code download <bucket> <dir>} downloads every object of the bucket into it.
 */
public final class SdkBaseline {

  public static void main(String[] args) throws Exception {
    String endpoint = args[0];
    try (S3AsyncClient s3 = S3AsyncClient.builder()
            .endpointOverride(URI.create(endpoint))
            .forcePathStyle(true)
            .region(Region.US_EAST_1)
            .credentialsProvider(DefaultCredentialsProvider.builder().build())
            .multipartEnabled(true)
            .build();
        S3TransferManager transfers = S3TransferManager.builder().s3Client(s3).build()) {
      ChildJvm.serve(words -> {
        Map<String, Object> reply = new LinkedHashMap<>();
        String bucket = words[1];
        Path dir = Path.of(words[2]);
        long started = System.nanoTime();
        long bytes = 0;
        List<CompletableFuture<?>> pending = new ArrayList<>();
        switch (words[0]) {
          case "upload" -> {
            List<Path> files;
            try (Stream<Path> walk = Files.walk(dir)) {
              files = walk.filter(Files::isRegularFile).filter(p -> !p.toString().endsWith(".md5")).toList();
            }
            for (Path file : files) {
              bytes += Files.size(file);
              String key = dir.relativize(file).toString();
              pending.add(transfers.uploadFile(UploadFileRequest.builder()
                  .putObjectRequest(b -> b.bucket(bucket).key(key)).source(file).build()).completionFuture());
            }
          }
          case "download" -> {
            Files.createDirectories(dir);
            for (var object : s3.listObjectsV2(b -> b.bucket(bucket)).join().contents()) {
              bytes += object.size();
              Path target = dir.resolve(object.key());
              Files.createDirectories(target.getParent());
              pending.add(transfers.downloadFile(DownloadFileRequest.builder()
                  .getObjectRequest(b -> b.bucket(bucket).key(object.key())).destination(target).build())
                  .completionFuture());
            }
          }
          default -> throw new IllegalArgumentException("unknown command " + words[0]);
        }
        CompletableFuture.allOf(pending.toArray(new CompletableFuture[0])).join();
        reply.put("seconds", (System.nanoTime() - started) / 1e9);
        reply.put("bytes", bytes);
        return reply;
      });
    }
    System.exit(0);
  }
}
