package dev.ratisoffload.store;

import dev.ratisoffload.primitives.DaemonThreads;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.ServerSideEncryption;

/**
 * An object store in an S3 bucket (AWS or any S3-compatible server), through the AWS SDK v2.
 *
 * <p>Put-if-absent is a conditional write ({@code If-None-Match: *}); on HTTP 412 the stored object is
 * read back and compared. Objects above the multipart threshold are uploaded in parts sent in parallel,
 * completed with the same condition; an upload that fails is aborted so no parts are left behind.
 *
 * <p>Content with a known SHA-256 (a chunk) is sent with it as {@code x-amz-checksum-sha256} and, over
 * plain HTTP, signed with it ({@link KnownPayloadHashSigner}), so a store that checks refuses bytes that
 * changed after they were hashed; other objects go with the SDK's CRC32, and with
 * {@code offload.s3.checksum = when_required} with none. Bodies go plain, not in {@code aws-chunked}
 * frames: with the checksum in a header the frames carry nothing, and a store decodes them at a cost
 * (S3Proxy a byte at a time).
 */
public final class S3ObjectStore implements ObjectStore {

  private static final int PRECONDITION_FAILED = 412;
  private static final int PART_UPLOAD_THREADS = 8;
  private static final String OCTET_STREAM = "application/octet-stream";
  /** Error codes by which S3 servers refuse a body that does not match a checksum sent with it. */
  private static final Set<String> CHECKSUM_MISMATCH_CODES =
      Set.of("BadDigest", "XAmzContentChecksumMismatch", "XAmzContentSHA256Mismatch");

  private final S3Client s3;
  private final String bucket;
  private final String prefix;
  private final S3Settings settings;
  private final ExecutorService partUploads;

  public S3ObjectStore(StoreUri uri, S3Settings settings) {
    if (!"s3".equals(uri.scheme())) {
      throw new IllegalArgumentException("not an S3 store URI: " + uri);
    }
    this.bucket = uri.bucket();
    this.prefix = uri.prefix().isEmpty() ? "" : uri.prefix() + "/";
    this.settings = settings;
    this.s3 = buildClient(settings);
    this.partUploads = Executors.newFixedThreadPool(PART_UPLOAD_THREADS, DaemonThreads.named("s3-part-upload"));
  }

  private static S3Client buildClient(S3Settings settings) {
    S3ClientBuilder builder = S3Client.builder()
        .httpClientBuilder(Apache5HttpClient.builder().maxConnections(64))
        .forcePathStyle(settings.pathStyle())
        .putAuthScheme(KnownPayloadHashSigner.authScheme())
        // Plain request bodies: aws-chunked framing only carries a checksum trailer, and with it the
        // store decodes every upload in small frames; the checksum goes in a header instead.
        .serviceConfiguration(S3Configuration.builder().chunkedEncodingEnabled(false).build())
        .requestChecksumCalculation(settings.checksum() == S3Settings.ChecksumMode.WHEN_REQUIRED
            ? RequestChecksumCalculation.WHEN_REQUIRED
            : RequestChecksumCalculation.WHEN_SUPPORTED)
        // Downloads ask for no stored checksum: the formats verify every object read, and the SDK's own
        // check would hash each restored chunk a second time on stores that keep checksums.
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
    if (settings.endpoint() != null) {
      builder.endpointOverride(settings.endpoint());
    }
    if (settings.region() != null) {
      builder.region(Region.of(settings.region()));
    } else if (settings.endpoint() != null) {
      // S3-compatible servers ignore the region but the signer needs one.
      builder.region(Region.US_EAST_1);
    }
    if (settings.credentials() != null) {
      builder.credentialsProvider(settings.credentials());
    } else if (settings.profile() != null) {
      builder.credentialsProvider(ProfileCredentialsProvider.create(settings.profile()));
    } else {
      builder.credentialsProvider(DefaultCredentialsProvider.builder().build());
    }
    return builder.build();
  }

  @Override
  public PutOutcome putIfAbsent(String key, Content content) {
    String fullKey = fullKey(key);
    try {
      if (content.size() > settings.multipartThreshold()) {
        // Some S3-compatible servers ignore the condition on completing a multipart upload; checking
        // first keeps a sequential retry or conflict from overwriting there (AWS S3 honours both).
        if (head(key).isPresent()) {
          return compareWithStored(key, content);
        }
        putMultipart(fullKey, content);
      } else {
        PutObjectRequest.Builder put = encrypted(PutObjectRequest.builder().bucket(bucket).key(fullKey)
            .ifNoneMatch("*").contentLength(content.size()));
        declaredSha256(content).ifPresent(digest -> put
            .checksumSHA256(Base64.getEncoder().encodeToString(digest))
            // and signed with it: over plain HTTP the SDK would read the body again to compute it
            .overrideConfiguration(o -> o.putHeader(KnownPayloadHashSigner.CONTENT_SHA256,
                KnownPayloadHashSigner.headerValue(digest))));
        try (ClosingStreamProvider body = new ClosingStreamProvider(content::open)) {
          s3.putObject(put.build(), RequestBody.fromContentProvider(body, content.size(), OCTET_STREAM));
        }
      }
      return PutOutcome.CREATED;
    } catch (S3Exception e) {
      if (e.statusCode() != PRECONDITION_FAILED) {
        throw translate("write", key, e);
      }
    } catch (SdkException | UncheckedIOException e) {
      throw translate("write", key, e);
    }
    return compareWithStored(key, content);
  }

  /**
   * The content's SHA-256 as the store checks it (x-amz-checksum-sha256, and the signature's payload
   * digest), unless checksums are sent only when required: the SDK then computes no checksum of its own
   * for the request, and signs the payload as it always does.
   */
  private Optional<byte[]> declaredSha256(Content content) {
    if (settings.checksum() == S3Settings.ChecksumMode.WHEN_REQUIRED) {
      return Optional.empty();
    }
    return content.sha256();
  }

  private PutOutcome compareWithStored(String key, Content content) {
    try {
      if (content.sameBytesAs(get(key))) {
        return PutOutcome.ALREADY_PRESENT;
      }
    } catch (IOException e) {
      throw new StoreUnavailableException("cannot compare " + key + " in " + describe() + ": " + e, e);
    }
    throw new ObjectConflictException(describe(), key);
  }

  private PutObjectRequest.Builder encrypted(PutObjectRequest.Builder request) {
    if (settings.encryption() == S3Settings.Encryption.AES256) {
      request.serverSideEncryption(ServerSideEncryption.AES256);
    } else if (settings.encryption() == S3Settings.Encryption.AWS_KMS) {
      request.serverSideEncryption(ServerSideEncryption.AWS_KMS).ssekmsKeyId(settings.kmsKeyId());
    }
    return request;
  }

  private void putMultipart(String fullKey, Content content) {
    CreateMultipartUploadRequest.Builder create =
        CreateMultipartUploadRequest.builder().bucket(bucket).key(fullKey);
    if (settings.encryption() == S3Settings.Encryption.AES256) {
      create.serverSideEncryption(ServerSideEncryption.AES256);
    } else if (settings.encryption() == S3Settings.Encryption.AWS_KMS) {
      create.serverSideEncryption(ServerSideEncryption.AWS_KMS).ssekmsKeyId(settings.kmsKeyId());
    }
    String uploadId = s3.createMultipartUpload(create.build()).uploadId();
    boolean completed = false;
    List<Future<CompletedPart>> parts = new ArrayList<>();
    AtomicBoolean failed = new AtomicBoolean();
    try {
      long partSize = settings.partSize();
      int partNumber = 1;
      for (long offset = 0; offset < content.size(); offset += partSize, partNumber++) {
        long length = Math.min(partSize, content.size() - offset);
        int number = partNumber;
        long start = offset;
        parts.add(partUploads.submit(() -> {
          if (failed.get()) { // parts still queued behind a failed one need not be sent
            throw new CancellationException("another part of the upload failed");
          }
          try (ClosingStreamProvider body = new ClosingStreamProvider(() -> content.open(start, length))) {
            String etag = s3.uploadPart(
                    b -> b.bucket(bucket).key(fullKey).uploadId(uploadId).partNumber(number)
                        .contentLength(length),
                    RequestBody.fromContentProvider(body, length, OCTET_STREAM))
                .eTag();
            return CompletedPart.builder().partNumber(number).eTag(etag).build();
          } catch (RuntimeException e) {
            failed.set(true);
            throw e;
          }
        }));
      }
      List<CompletedPart> done = new ArrayList<>();
      for (Future<CompletedPart> part : parts) {
        done.add(awaitPart(part));
      }
      s3.completeMultipartUpload(b -> b.bucket(bucket).key(fullKey).uploadId(uploadId).ifNoneMatch("*")
          .multipartUpload(m -> m.parts(done)));
      completed = true;
    } finally {
      if (!completed) {
        // A part still uploading when the upload is aborted may be stored anyway: let them all end first.
        parts.forEach(S3ObjectStore::awaitQuietly);
        abortQuietly(fullKey, uploadId);
      }
    }
  }

  private static CompletedPart awaitPart(Future<CompletedPart> part) {
    try {
      return part.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw SdkClientException.create("interrupted while uploading parts", e);
    } catch (CancellationException e) {
      throw SdkClientException.create("the store was closed while uploading parts", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof SdkException sdk) {
        throw sdk;
      }
      throw SdkClientException.create("part upload failed: " + e.getCause(), e.getCause());
    }
  }

  private static void awaitQuietly(Future<CompletedPart> part) {
    try {
      part.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | CancellationException e) {
      // the failure that matters is already on its way up
    }
  }

  private void abortQuietly(String fullKey, String uploadId) {
    try {
      s3.abortMultipartUpload(b -> b.bucket(bucket).key(fullKey).uploadId(uploadId));
    } catch (SdkException ignored) {
      // The bucket's lifecycle rule for incomplete uploads is the last line of defence.
    }
  }

  @Override
  public InputStream get(String key) {
    try {
      return s3.getObject(b -> b.bucket(bucket).key(fullKey(key)));
    } catch (SdkException e) {
      throw translate("read", key, e);
    }
  }

  @Override
  public InputStream get(String key, long offset, long length) {
    if (length <= 0) {
      return InputStream.nullInputStream();
    }
    try {
      return s3.getObject(b -> b.bucket(bucket).key(fullKey(key))
          .range("bytes=" + offset + "-" + (offset + length - 1)));
    } catch (S3Exception e) {
      if (e.statusCode() == 416) { // the range starts past the end
        return InputStream.nullInputStream();
      }
      throw translate("read", key, e);
    } catch (SdkException e) {
      throw translate("read", key, e);
    }
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    try {
      HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key(fullKey(key)));
      return Optional.of(new ObjectInfo(key, head.contentLength(), head.lastModified()));
    } catch (NoSuchKeyException e) {
      return Optional.empty();
    } catch (S3Exception e) {
      if (e.statusCode() == 404 && !isMissingBucket(e)) {
        return Optional.empty();
      }
      throw translate("inspect", key, e);
    } catch (SdkException e) {
      throw translate("inspect", key, e);
    }
  }

  @Override
  public List<ObjectInfo> list(String keyPrefix, String startAfter, int maxKeys) {
    ObjectKeys.requireValidPrefix(keyPrefix);
    ObjectStore.requirePositive(maxKeys);
    List<ObjectInfo> objects = new ArrayList<>();
    try {
      // Keys are ASCII, so S3's order (UTF-8 bytes) is the key order of the other stores. Pages are
      // fetched lazily: stopping at maxKeys requests no further page.
      for (S3Object object : s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix + keyPrefix)
              .startAfter(startAfter.isEmpty() ? null : prefix + startAfter).maxKeys(Math.min(maxKeys, 1000)))
          .contents()) {
        objects.add(new ObjectInfo(object.key().substring(prefix.length()), object.size(),
            object.lastModified()));
        if (objects.size() == maxKeys) {
          break;
        }
      }
    } catch (SdkException e) {
      throw translate("list", keyPrefix.isEmpty() ? "(everything)" : keyPrefix + "*", e);
    }
    return objects;
  }

  @Override
  public void delete(String key) {
    try {
      s3.deleteObject(b -> b.bucket(bucket).key(fullKey(key)));
    } catch (S3Exception e) {
      if (e.statusCode() == 403 && String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT)
          .contains("object lock")) {
        throw new DeleteRefusedException("object lock protects " + key + " in " + describe(), e);
      }
      throw translate("delete", key, e);
    } catch (SdkException e) {
      throw translate("delete", key, e);
    }
  }

  /**
   * A warning when the bucket keeps what is deleted: with versioning, deleted objects stay as
   * noncurrent versions (and keep costing) until a lifecycle rule expires them.
   */
  @Override
  public java.util.Optional<String> deletionWarning() {
    try {
      var status = s3.getBucketVersioning(b -> b.bucket(bucket)).status();
      if (status == null) {
        return java.util.Optional.empty();
      }
      return java.util.Optional.of("bucket " + bucket + " has versioning " + status
          + ": deleted objects remain as noncurrent versions; add a lifecycle rule that expires noncurrent"
          + " versions, or storage keeps growing");
    } catch (SdkException e) {
      return java.util.Optional.empty(); // no permission to ask: nothing to say
    }
  }

  @Override
  public String describe() {
    return "s3://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix.substring(0, prefix.length() - 1));
  }

  @Override
  public void close() {
    // Parts still queued never run: cancel them so that an upload waiting for them fails instead of hanging.
    for (Runnable queued : partUploads.shutdownNow()) {
      if (queued instanceof Future<?> part) {
        part.cancel(false);
      }
    }
    s3.close();
  }

  /** For {@link S3ConformanceProbes}: what the store interface does not expose. */
  S3Client client() {
    return s3;
  }

  String bucket() {
    return bucket;
  }

  S3Settings settings() {
    return settings;
  }

  String fullKey(String key) {
    return prefix + ObjectKeys.requireValid(key);
  }

  private static boolean isMissingBucket(S3Exception e) {
    return e instanceof NoSuchBucketException
        || (e.awsErrorDetails() != null && "NoSuchBucket".equals(e.awsErrorDetails().errorCode()));
  }

  /** Maps an SDK failure to the store's error kinds, with a message naming the store and key. */
  private StoreException translate(String action, String key, RuntimeException e) {
    String what = "cannot " + action + " " + key + " in " + describe();
    if (e instanceof S3Exception s3e) {
      int status = s3e.statusCode();
      String code = s3e.awsErrorDetails() == null ? "" : s3e.awsErrorDetails().errorCode();
      String detail = what + ": " + code + " (HTTP " + status + ")";
      if (status == 404 && isMissingBucket(s3e)) {
        return new StoreAccessException(what + ": the bucket " + bucket
            + " does not exist; create it or correct the store URI", e);
      }
      if (status == 404) {
        return new ObjectNotFoundException(describe(), key);
      }
      if (status == 400 && CHECKSUM_MISMATCH_CODES.contains(code)) {
        return new IntegrityException(what + ": the store computed another checksum for the bytes it received"
            + " than the one they were sent with (" + code + "): they changed on the way or in this process's"
            + " memory, and nothing was stored at the key", e);
      }
      if (status == 401 || status == 403) {
        return new StoreAccessException(detail
            + ": access denied; check the credentials and the bucket policy", e);
      }
      if (status >= 500 || status == 429 || status == 409 || status == 408) {
        return new StoreUnavailableException(detail, e);
      }
      return new StoreAccessException(detail, e);
    }
    return new StoreUnavailableException(what + ": " + e.getMessage(), e);
  }

}
