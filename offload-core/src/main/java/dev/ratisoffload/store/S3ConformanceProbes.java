package dev.ratisoffload.store;

import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.ServerSideEncryption;

/**
 * The checks of {@link StoreConformance} that need the S3 API itself: a multipart completion with
 * {@code If-None-Match: *} (the S3 store sends a head request first, so it cannot show whether the store
 * honours the condition) and the encryption a stored object reports.
 */
final class S3ConformanceProbes {

  private static final int PRECONDITION_FAILED = 412;

  private final S3ObjectStore store;
  private final S3Client s3;
  private final String bucket;

  S3ConformanceProbes(S3ObjectStore store) {
    this.store = store;
    this.s3 = store.client();
    this.bucket = store.bucket();
  }

  boolean sendsNoChecksum() {
    return store.settings().checksum() == S3Settings.ChecksumMode.WHEN_REQUIRED;
  }

  /** Writes {@code key}, then completes a multipart upload to it with {@code If-None-Match: *}. */
  ConformanceResult multipartCompletionIsConditional(String key) {
    ConformanceProperty p = ConformanceProperty.MULTIPART_PUT_IF_ABSENT;
    byte[] first = StoreConformance.pattern(100, 7);
    store.putIfAbsent(key, Content.of(first));
    String fullKey = store.fullKey(key);
    String uploadId;
    try {
      uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key(fullKey)).uploadId();
    } catch (SdkException e) {
      return ConformanceResult.fails(p, "cannot start a multipart upload: " + e.getMessage());
    }
    boolean completed = false;
    try {
      String etag = s3.uploadPart(b -> b.bucket(bucket).key(fullKey).uploadId(uploadId).partNumber(1),
          RequestBody.fromBytes(StoreConformance.pattern(100, 8))).eTag();
      s3.completeMultipartUpload(b -> b.bucket(bucket).key(fullKey).uploadId(uploadId).ifNoneMatch("*")
          .multipartUpload(m -> m.parts(List.of(CompletedPart.builder().partNumber(1).eTag(etag).build()))));
      completed = true;
      return ConformanceResult.fails(p, "a multipart upload with If-None-Match: * replaced an existing key");
    } catch (S3Exception e) {
      if (e.statusCode() == PRECONDITION_FAILED) {
        return ConformanceResult.holds(p, "a multipart upload with If-None-Match: * to an existing key was refused");
      }
      return ConformanceResult.fails(p, "completing a conditional multipart upload failed: " + e.getMessage());
    } catch (SdkException e) {
      throw new StoreUnavailableException("cannot check multipart uploads in " + store.describe() + ": "
          + e.getMessage(), e);
    } finally {
      if (!completed) {
        abortQuietly(fullKey, uploadId);
      }
    }
  }

  /** Whether an object written with the configured encryption reports it. */
  ConformanceResult encryptionIsApplied(String key) {
    ConformanceProperty p = ConformanceProperty.ENCRYPTION;
    S3Settings.Encryption wanted = store.settings().encryption();
    if (wanted == S3Settings.Encryption.NONE) {
      return ConformanceResult.notApplicable(p, "no server-side encryption configured (the bucket's default applies)");
    }
    ServerSideEncryption reported;
    try {
      reported = s3.headObject(b -> b.bucket(bucket).key(store.fullKey(key))).serverSideEncryption();
    } catch (SdkException e) {
      return ConformanceResult.fails(p, "cannot read the encryption of an object written: " + e.getMessage());
    }
    ServerSideEncryption expected = wanted == S3Settings.Encryption.AES256 ? ServerSideEncryption.AES256
        : ServerSideEncryption.AWS_KMS;
    return expected.equals(reported)
        ? ConformanceResult.holds(p, "an object written with " + wanted.word() + " reports it")
        : ConformanceResult.fails(p, "an object written with " + wanted.word() + " reports "
            + (reported == null ? "no encryption" : reported.toString()));
  }

  /**
   * After a write with the configured encryption failed: a result saying the store refuses that encryption
   * when a write without it succeeds; empty when there is no encryption to blame.
   */
  Optional<ConformanceResult> encryptionRefused(String key, StoreException writeFailure) {
    S3Settings.Encryption configured = store.settings().encryption();
    if (configured == S3Settings.Encryption.NONE) {
      return Optional.empty();
    }
    try {
      s3.putObject(b -> b.bucket(bucket).key(store.fullKey(key)), RequestBody.fromBytes(new byte[] {1}));
    } catch (SdkException e) {
      return Optional.empty();
    }
    return Optional.of(ConformanceResult.fails(ConformanceProperty.ENCRYPTION, "a write with " + configured.word()
        + " was refused (" + writeFailure.getMessage() + ") and one without it was stored; every other check"
        + " writes with it, so none ran"));
  }

  private void abortQuietly(String fullKey, String uploadId) {
    try {
      s3.abortMultipartUpload(b -> b.bucket(bucket).key(fullKey).uploadId(uploadId));
    } catch (SdkException ignored) {
      // The bucket's lifecycle rule for incomplete uploads removes it.
    }
  }
}
