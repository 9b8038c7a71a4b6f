package dev.ratisoffload.bench;

import java.io.InputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The baseline, in its own JVM: the AWS SDK (the same synchronous S3 client and HTTP client the store
 * uses, with the SDK's default checksums) moving the same files with parallel multipart transfers, and
 * nothing else: no chunking, no hashing of its own, no verification.
 *
 * <p>Uploads split every file into 8 MiB parts (the SDK transfer manager's default part size) and send
 * the parts of all files on {@value #THREADS} threads. Downloads fetch 8 MiB ranges of every object on
 * as many threads and write them in place.
 *
 * <p>The SDK's transfer manager over its Java-based multipart client is what an operator would reach
 * for first, but S3Proxy rejects the {@code x-amz-mp-object-size} header it sends when completing an
 * upload (HTTP 501), so the same transfers are written out here with the plain client.
 *
 * <p>Commands: {@code upload <bucket> <dir>} uploads every file under the directory but Ratis's
 * {@code .md5} sidecars; {@code download <bucket> <dir>} downloads every object of the bucket into it;
 * {@code fetch <bucket> <keysFile> <dir>} downloads the objects named in the file, one file each.
 */
public final class SdkBaseline {

  static final int THREADS = 8;
  static final long PART = 8L * 1024 * 1024;

  public static void main(String[] args) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (S3Client s3 = S3Client.builder()
        .httpClientBuilder(Apache5HttpClient.builder().maxConnections(64))
        .endpointOverride(URI.create(args[0]))
        .forcePathStyle(true)
        .region(Region.US_EAST_1)
        .credentialsProvider(DefaultCredentialsProvider.builder().build())
        .build()) {
      ChildJvm.serve(words -> {
        String bucket = words[1];
        Path dir = Path.of(words[2]);
        long started = System.nanoTime();
        long cpuBefore = PublishPeer.processCpuNanos();
        long bytes = switch (words[0]) {
          case "upload" -> upload(s3, pool, bucket, dir);
          case "download" -> download(s3, pool, bucket, dir);
          case "fetch" -> fetch(s3, pool, bucket, Files.readAllLines(dir), Path.of(words[3]));
          default -> throw new IllegalArgumentException("unknown command " + words[0]);
        };
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("seconds", (System.nanoTime() - started) / 1e9);
        reply.put("cpuSeconds", (PublishPeer.processCpuNanos() - cpuBefore) / 1e9);
        reply.put("bytes", bytes);
        return reply;
      });
    } finally {
      pool.shutdownNow();
    }
    System.exit(0);
  }

  static long upload(S3Client s3, ExecutorService pool, String bucket, Path dir) throws Exception {
    List<Path> files;
    try (Stream<Path> walk = Files.walk(dir)) {
      files = walk.filter(Files::isRegularFile).filter(p -> !p.toString().endsWith(".md5")).toList();
    }
    long bytes = 0;
    List<String> keys = new ArrayList<>();
    List<String> uploadIds = new ArrayList<>();
    List<List<Future<CompletedPart>>> parts = new ArrayList<>();
    for (Path file : files) {
      long size = Files.size(file);
      bytes += size;
      String key = dir.relativize(file).toString();
      String uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key(key)).uploadId();
      List<Future<CompletedPart>> fileParts = new ArrayList<>();
      int number = 1;
      for (long offset = 0; offset < size || number == 1; offset += PART, number++) {
        long start = offset;
        long length = Math.min(PART, size - offset);
        int partNumber = number;
        fileParts.add(pool.submit(() -> {
          String etag = s3.uploadPart(b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(partNumber)
                  .contentLength(length),
              RequestBody.fromContentProvider(() -> slice(file, start, length), length, "application/octet-stream"))
              .eTag();
          return CompletedPart.builder().partNumber(partNumber).eTag(etag).build();
        }));
      }
      keys.add(key);
      uploadIds.add(uploadId);
      parts.add(fileParts);
    }
    for (int i = 0; i < keys.size(); i++) {
      List<CompletedPart> done = new ArrayList<>();
      for (Future<CompletedPart> part : parts.get(i)) {
        done.add(part.get());
      }
      String key = keys.get(i);
      String uploadId = uploadIds.get(i);
      s3.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId).multipartUpload(m -> m.parts(done)));
    }
    return bytes;
  }

  private static InputStream slice(Path file, long start, long length) {
    try {
      InputStream in = Files.newInputStream(file);
      in.skipNBytes(start);
      return new java.io.FilterInputStream(in) {
        private long left = length;

        @Override
        public int read() throws java.io.IOException {
          if (left <= 0) {
            return -1;
          }
          int b = super.read();
          left -= b < 0 ? 0 : 1;
          return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int count) throws java.io.IOException {
          if (left <= 0) {
            return -1;
          }
          int n = super.read(buffer, offset, (int) Math.min(count, left));
          left -= Math.max(0, n);
          return n;
        }
      };
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Whole-object downloads of the keys, {@value #THREADS} at a time, each into a file of its own. */
  static long fetch(S3Client s3, ExecutorService pool, String bucket, List<String> keys, Path dir) throws Exception {
    Files.createDirectories(dir);
    List<Future<Long>> pending = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.get(i);
      Path target = dir.resolve(Integer.toString(i));
      pending.add(pool.submit(() -> {
        try (InputStream in = s3.getObject(b -> b.bucket(bucket).key(key))) {
          return Files.copy(in, target);
        }
      }));
    }
    long bytes = 0;
    for (Future<Long> f : pending) {
      bytes += f.get();
    }
    return bytes;
  }

  static long download(S3Client s3, ExecutorService pool, String bucket, Path dir) throws Exception {
    Files.createDirectories(dir);
    long bytes = 0;
    List<Future<?>> pending = new ArrayList<>();
    List<FileChannel> channels = new ArrayList<>();
    try {
      for (S3Object object : s3.listObjectsV2Paginator(b -> b.bucket(bucket)).contents()) {
        bytes += object.size();
        Path target = dir.resolve(object.key());
        Files.createDirectories(target.getParent());
        FileChannel channel = FileChannel.open(target, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
        channels.add(channel);
        for (long offset = 0; offset < object.size(); offset += PART) {
          long start = offset;
          long end = Math.min(object.size(), offset + PART) - 1;
          pending.add(pool.submit(() -> {
            byte[] buffer = new byte[256 * 1024];
            long position = start;
            try (InputStream in = s3.getObject(b -> b.bucket(bucket).key(object.key()).range("bytes=" + start + "-" + end))) {
              int n;
              while ((n = in.read(buffer)) > 0) {
                ByteBuffer bb = ByteBuffer.wrap(buffer, 0, n);
                while (bb.hasRemaining()) {
                  position += channel.write(bb, position);
                }
              }
            }
            return null;
          }));
        }
      }
      for (Future<?> f : pending) {
        f.get();
      }
    } finally {
      for (FileChannel channel : channels) {
        channel.close();
      }
    }
    return bytes;
  }
}
