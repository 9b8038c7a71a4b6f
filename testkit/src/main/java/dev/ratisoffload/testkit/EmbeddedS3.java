package dev.ratisoffload.testkit;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;

/**
 * A real S3 API server (S3Proxy) in this JVM, on 127.0.0.1, storing objects in a directory.
 *
 * <p>It requires AWS signature V4 with a fixed access key and secret, and honours conditional
 * writes ({@code If-None-Match: *}, {@code If-Match}). {@link #stop()} and {@link #restart()} keep
 * the data and the port, so a test can take the store away mid-run and bring it back. Clients
 * must use path-style requests and region {@value #REGION}.
 */
public final class EmbeddedS3 implements AutoCloseable {
  public static final String ACCESS_KEY = "embedded-s3-access-key";
  public static final String SECRET_KEY = "embedded-s3-secret-key";
  public static final String REGION = "us-east-1";

  static {
    quietLogging();
  }

  private final Path dataDir;
  private final boolean ownsDataDir;
  private int port; // 0 until the first start picks an ephemeral port
  private S3Proxy proxy;
  private BlobStore blobStore;

  private EmbeddedS3(Path dataDir, boolean ownsDataDir) {
    this.dataDir = dataDir;
    this.ownsDataDir = ownsDataDir;
  }

  /** Starts a server on a free port, storing objects in a new temporary directory (deleted by {@link #close()}). */
  public static EmbeddedS3 start() throws IOException {
    final EmbeddedS3 s3 = new EmbeddedS3(Files.createTempDirectory("embedded-s3-"), true);
    s3.startServer();
    return s3;
  }

  /** Starts a server on a free port, storing objects in {@code dataDir} (kept by {@link #close()}). */
  public static EmbeddedS3 start(Path dataDir) throws IOException {
    final EmbeddedS3 s3 = new EmbeddedS3(Files.createDirectories(dataDir), false);
    s3.startServer();
    return s3;
  }

  private synchronized void startServer() throws IOException {
    final BlobStore newStore = new FilesystemNio2BlobStore(dataDir.toString());
    final S3Proxy newProxy = S3Proxy.builder()
        .blobStore(newStore)
        .endpoint(URI.create("http://127.0.0.1:" + port))
        .awsAuthentication(AuthenticationType.AWS_V4, ACCESS_KEY, SECRET_KEY)
        .build();
    try {
      newProxy.start();
      Await.until("S3Proxy to start on 127.0.0.1:" + port, Duration.ofSeconds(30),
          () -> "STARTED".equals(newProxy.getState()));
    } catch (Exception | AssertionError e) {
      stopQuietly(newProxy);
      newStore.close();
      throw new IOException("cannot start S3Proxy on 127.0.0.1:" + port + ": " + e.getMessage(), e);
    }
    proxy = newProxy;
    blobStore = newStore;
    port = newProxy.getPort();
  }

  /** Stops serving (connections are refused) but keeps the data and the port for {@link #restart()}. */
  public synchronized void stop() {
    if (proxy != null) {
      stopQuietly(proxy);
      blobStore.close();
      proxy = null;
      blobStore = null;
    }
  }

  /** Starts serving again on the same port with the same data (stopping first if running). */
  public synchronized void restart() throws IOException {
    stop();
    startServer();
  }

  public synchronized boolean isRunning() {
    return proxy != null;
  }

  /** Creates a bucket directly in the backing store (no HTTP); the server must be running. */
  public synchronized void createBucket(String bucket) {
    if (blobStore == null) {
      throw new IllegalStateException("the embedded S3 server is stopped; restart() it first");
    }
    blobStore.createContainer(bucket);
  }

  /** {@code http://127.0.0.1:<port>}. */
  public synchronized URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  public synchronized int port() {
    return port;
  }

  public String accessKey() {
    return ACCESS_KEY;
  }

  public String secretKey() {
    return SECRET_KEY;
  }

  public String region() {
    return REGION;
  }

  /** Where objects are stored (one subdirectory per bucket). */
  public Path dataDir() {
    return dataDir;
  }

  /** Stops the server and deletes the data directory if this object created it. */
  @Override
  public synchronized void close() throws IOException {
    stop();
    if (ownsDataDir) {
      TempDirs.delete(dataDir);
    }
  }

  private static void stopQuietly(S3Proxy p) {
    try {
      p.stop();
    } catch (Exception e) {
      // Stopping a server that failed to start; the original failure is what matters.
    }
  }

  /**
   * S3Proxy and its Jetty log every request at INFO and DEBUG. The project logs through
   * slf4j-simple, which reads per-logger levels from system properties when a logger is created,
   * so default them to WARN before S3Proxy creates its loggers (a value set by the caller wins).
   */
  private static void quietLogging() {
    for (String name : List.of("org.gaul", "org.eclipse.jetty")) {
      final String key = "org.slf4j.simpleLogger.log." + name;
      if (System.getProperty(key) == null) {
        System.setProperty(key, "warn");
      }
    }
  }

  @Override
  public String toString() {
    return "EmbeddedS3[" + endpoint() + ", data " + dataDir + (isRunning() ? "" : ", stopped") + "]";
  }
}
