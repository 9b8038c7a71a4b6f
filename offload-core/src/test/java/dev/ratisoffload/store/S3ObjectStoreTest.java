package dev.ratisoffload.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.store.ObjectStore.PutOutcome;
import dev.ratisoffload.testkit.EmbeddedS3;
import java.io.IOException;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/** The store contract against a real S3 API server (S3Proxy), through the AWS SDK. */
class S3ObjectStoreTest extends ObjectStoreContract {

  private static EmbeddedS3 s3;
  private static S3ObjectStore store;

  @BeforeAll
  static void startS3() throws IOException {
    s3 = EmbeddedS3.start();
    s3.createBucket("contract");
    store = new S3ObjectStore(StoreUri.parse("s3://contract/some/prefix"), settings(s3, s3.secretKey())
        .multipart(6L * 1024 * 1024, S3Settings.MIN_PART_SIZE).build());
  }

  static S3Settings.Builder settings(EmbeddedS3 s3, String secret) {
    return S3Settings.builder().endpoint(s3.endpoint()).pathStyle(true).region(s3.region())
        .credentials(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(), secret)));
  }

  @AfterAll
  static void stopS3() throws IOException {
    store.close();
    s3.close();
  }

  @Override
  ObjectStore store() {
    return store;
  }

  @Test
  void keysLiveUnderThePrefix() throws IOException {
    store.putIfAbsent(key("p"), Content.of(bytes("v")));
    try (S3ObjectStore root = new S3ObjectStore(StoreUri.parse("s3://contract"), settings(s3, s3.secretKey()).build())) {
      assertArrayEquals(bytes("v"), read(root.get("some/prefix/" + key("p"))));
    }
    assertEquals("s3://contract/some/prefix", store.describe());
  }

  @Test
  void multipartUploadsAreConditionalToo() throws IOException {
    byte[] big = new byte[13 * 1024 * 1024];
    new Random(3).nextBytes(big);
    assertEquals(ObjectStore.PutOutcome.CREATED, store.putIfAbsent(key("mp"), Content.of(big)));
    byte[] other = big.clone();
    other[0]++;
    assertThrows(ObjectConflictException.class, () -> store.putIfAbsent(key("mp"), Content.of(other)));
    assertArrayEquals(big, read(store.get(key("mp"))));
  }

  @Test
  void aMissingBucketIsAnAccessErrorNamingIt() {
    try (S3ObjectStore missing = new S3ObjectStore(StoreUri.parse("s3://no-such-bucket/x"),
        settings(s3, s3.secretKey()).build())) {
      StoreAccessException e = assertThrows(StoreAccessException.class, () -> missing.list(""));
      assertTrue(e.getMessage().contains("no-such-bucket"), e.getMessage());
      assertFalse(e.isRetriable());
    }
  }

  @Test
  void wrongCredentialsAreAnAccessErrorWithoutTheSecret() {
    String secret = "wrong-secret-value-0123456789";
    try (S3ObjectStore denied = new S3ObjectStore(StoreUri.parse("s3://contract/x"), settings(s3, secret).build())) {
      StoreAccessException e = assertThrows(StoreAccessException.class,
          () -> denied.putIfAbsent("k", Content.of(bytes("v"))));
      assertTrue(e.getMessage().contains("access denied"), e.getMessage());
      assertFalse(stackText(e).contains(secret), "the secret must not appear in any error");
    }
  }

  @Test
  void bytesDeclaredWithTheirSha256AreStored() throws IOException {
    byte[] chunk = new byte[300_000];
    new Random(7).nextBytes(chunk);
    Content declared = Content.of(chunk).withSha256(sha256(chunk));
    assertEquals(PutOutcome.CREATED, store.putIfAbsent(key("declared"), declared));
    assertArrayEquals(chunk, read(store.get(key("declared"))));
    assertEquals(PutOutcome.ALREADY_PRESENT, store.putIfAbsent(key("declared"), declared));
  }

  /**
   * The store checks what it received against the declared SHA-256: bytes changed after hashing are refused.
   * The request is signed with that declared digest (not one the SDK computed of the bytes it sent), so the
   * store refuses it as the signature's payload digest already.
   */
  @Test
  void bytesThatDoNotMatchTheirDeclaredSha256AreRefusedAndNothingIsStored() {
    byte[] chunk = new byte[300_000];
    new Random(8).nextBytes(chunk);
    byte[] digest = sha256(chunk);
    chunk[123_456] ^= 1; // a bit flipped after hashing
    IntegrityException e = assertThrows(IntegrityException.class,
        () -> store.putIfAbsent(key("flipped"), Content.of(chunk).withSha256(digest)));
    assertTrue(e.getMessage().contains("XAmzContentSHA256Mismatch") && e.getMessage().contains("nothing was stored"),
        e::getMessage);
    assertFalse(e.isRetriable());
    assertTrue(store.head(key("flipped")).isEmpty());
  }

  /** With checksums sent only when required, no SHA-256 goes with a chunk: a store that cannot take it is spared. */
  @Test
  void noSha256IsDeclaredWhenChecksumsAreSentOnlyWhenRequired() throws IOException {
    byte[] chunk = new byte[300_000];
    new Random(11).nextBytes(chunk);
    byte[] wrong = sha256(new byte[] {1});
    try (S3ObjectStore plain = new S3ObjectStore(StoreUri.parse("s3://contract/some/prefix"),
        settings(s3, s3.secretKey()).checksum(S3Settings.ChecksumMode.WHEN_REQUIRED).build())) {
      assertEquals(PutOutcome.CREATED, plain.putIfAbsent(key("undeclared"), Content.of(chunk).withSha256(wrong)));
      assertArrayEquals(chunk, read(plain.get(key("undeclared"))));
    }
  }

  /** Every stream a put opens over its content is closed, single and multipart: a file's handle must not leak. */
  @Test
  void everyStreamAPutOpensIsClosed() {
    byte[] small = new byte[300_000];
    byte[] big = new byte[13 * 1024 * 1024];
    new Random(9).nextBytes(small);
    new Random(10).nextBytes(big);
    Content[] contents = {Content.of(small).withSha256(sha256(small)), Content.of(small), Content.of(big)};
    for (int i = 0; i < contents.length; i++) {
      Content content = contents[i];
      OpenStreams tracked = new OpenStreams(content);
      assertEquals(PutOutcome.CREATED, store.putIfAbsent(key("closed-" + i), tracked));
      assertEquals(PutOutcome.ALREADY_PRESENT, store.putIfAbsent(key("closed-" + i), tracked));
      assertTrue(tracked.opened.get() > 0);
      assertEquals(0, tracked.open.get(), () -> tracked.open.get() + " of " + tracked.opened.get()
          + " streams left open by a put of " + content.size() + " bytes");
    }
  }

  /**
   * When a part fails, the parts still queued are not sent, and the put fails only once the parts in flight
   * have ended (an abort may not remove a part still uploading), with every stream closed.
   */
  @Test
  void aFailedPartStopsThePartsQueuedBehindItAndThoseInFlightEndBeforeThePutFails() {
    int partCount = 40;
    Content zeros = new Content() {
      @Override
      public long size() {
        return partCount * S3Settings.MIN_PART_SIZE;
      }

      @Override
      public java.io.InputStream open() {
        return open(0, size());
      }

      @Override
      public java.io.InputStream open(long offset, long length) {
        return new BoundedInputStream(new java.io.InputStream() {
          @Override
          public int read() {
            return 0;
          }

          @Override
          public int read(byte[] b, int off, int len) {
            java.util.Arrays.fill(b, off, off + len, (byte) 0);
            return len;
          }
        }, length);
      }
    };
    OpenStreams tracked = new OpenStreams(zeros, true);
    assertThrows(StoreException.class, () -> store.putIfAbsent(key("failed-part"), tracked));
    assertTrue(tracked.opened.get() < partCount, () -> tracked.opened.get() + " streams opened for " + partCount + " parts");
    assertEquals(0, tracked.open.get(), "streams still open after the put failed");
    assertTrue(store.head(key("failed-part")).isEmpty());
  }

  /** Content that counts the streams opened over it and those still open; the first open may fail. */
  private static final class OpenStreams extends Content {
    final Content bytes;
    final boolean failFirstOpen;
    final java.util.concurrent.atomic.AtomicInteger opened = new java.util.concurrent.atomic.AtomicInteger();
    final java.util.concurrent.atomic.AtomicInteger open = new java.util.concurrent.atomic.AtomicInteger();

    OpenStreams(Content bytes) {
      this(bytes, false);
    }

    OpenStreams(Content bytes, boolean failFirstOpen) {
      this.bytes = bytes;
      this.failFirstOpen = failFirstOpen;
    }

    @Override
    public long size() {
      return bytes.size();
    }

    @Override
    public java.util.Optional<byte[]> sha256() {
      return bytes.sha256();
    }

    @Override
    public java.io.InputStream open() {
      return tracked(bytes::open);
    }

    @Override
    public java.io.InputStream open(long offset, long length) {
      return tracked(() -> bytes.open(offset, length));
    }

    private java.io.InputStream tracked(java.util.function.Supplier<java.io.InputStream> opener) {
      if (opened.getAndIncrement() == 0 && failFirstOpen) {
        throw new java.io.UncheckedIOException(new IOException("the disk is gone"));
      }
      open.incrementAndGet();
      return new java.io.FilterInputStream(opener.get()) {
        private boolean closed;

        @Override
        public void close() throws IOException {
          if (!closed) {
            closed = true;
            open.decrementAndGet();
          }
          super.close();
        }
      };
    }
  }

  @Test
  void anUnreachableServerIsRetriable() {
    int closedPort = dev.ratisoffload.testkit.FreePorts.next();
    S3Settings unreachable = S3Settings.builder().endpoint(java.net.URI.create("http://127.0.0.1:" + closedPort))
        .pathStyle(true).region("us-east-1")
        .credentials(StaticCredentialsProvider.create(AwsBasicCredentials.create("a", "b"))).build();
    try (S3ObjectStore down = new S3ObjectStore(StoreUri.parse("s3://contract/x"), unreachable)) {
      StoreException e = assertThrows(StoreUnavailableException.class, () -> down.head("k"));
      assertTrue(e.isRetriable());
      assertTrue(e.getMessage().contains("s3://contract/x"), e.getMessage());
    }
  }

  static byte[] sha256(byte[] bytes) {
    try {
      return java.security.MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  static String stackText(Throwable t) {
    java.io.StringWriter out = new java.io.StringWriter();
    t.printStackTrace(new java.io.PrintWriter(out));
    return out.toString();
  }
}
