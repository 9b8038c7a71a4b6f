package dev.ratisoffload.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * Downloads leave checking to the formats (every object read is verified by the hash it is stored under
 * or carries): the SDK neither asks the store for a stored checksum nor checks one it is sent, which on
 * stores that keep checksums (AWS S3) would hash every restored chunk a second time.
 *
 * <p>S3Proxy returns no checksums, so a server on loopback stands in for such a store: it answers every
 * read with a checksum that does not match the body, and records what each request asked for.
 */
class S3DownloadChecksumTest {

  private static final byte[] BODY = "bytes that the formats verify".getBytes(StandardCharsets.UTF_8);
  private static final List<String> checksumModes = new CopyOnWriteArrayList<>();
  private static HttpServer server;

  @BeforeAll
  static void startServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      String mode = exchange.getRequestHeaders().getFirst("x-amz-checksum-mode");
      checksumModes.add(mode == null ? "none" : mode);
      exchange.getResponseHeaders().add("x-amz-checksum-crc32", "AAAAAA=="); // not the body's CRC32
      exchange.getResponseHeaders().add("x-amz-checksum-type", "FULL_OBJECT");
      exchange.sendResponseHeaders(200, BODY.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(BODY);
      }
    });
    server.start();
  }

  @AfterAll
  static void stopServer() {
    server.stop(0);
  }

  @ParameterizedTest
  @EnumSource(S3Settings.ChecksumMode.class)
  void aDownloadAsksForNoChecksumAndChecksNone(S3Settings.ChecksumMode mode) throws IOException {
    checksumModes.clear();
    S3Settings settings = S3Settings.builder()
        .endpoint(URI.create("http://127.0.0.1:" + server.getAddress().getPort())).pathStyle(true)
        .region("us-east-1").checksum(mode)
        .credentials(StaticCredentialsProvider.create(AwsBasicCredentials.create("access", "secret"))).build();
    try (S3ObjectStore store = new S3ObjectStore(StoreUri.parse("s3://bucket/prefix"), settings)) {
      try (InputStream in = store.get("chunks/whole")) {
        assertArrayEquals(BODY, in.readAllBytes());
      }
      try (InputStream in = store.get("chunks/ranged", 0, BODY.length)) {
        assertArrayEquals(BODY, in.readAllBytes());
      }
    }
    assertEquals(List.of("none", "none"), checksumModes);
  }
}
