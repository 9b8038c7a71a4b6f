package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.testkit.EmbeddedS3;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No credential reaches a log, whatever level an operator turns the libraries' logs up to: the command
 * line's logging configuration keeps the SDK's and the HTTP client's wire, header and signing loggers
 * quiet. Runs {@code offload} in a JVM of its own, as slf4j reads its configuration once per JVM.
 */
class CredentialLoggingTest {

  static final String SESSION_TOKEN = "session-token-that-must-never-be-logged";

  @TempDir
  Path tmp;

  @Test
  void noCredentialIsLoggedAtTrace() throws Exception {
    try (EmbeddedS3 s3 = EmbeddedS3.start()) {
      s3.createBucket("backups");
      Map<String, String> keys = Map.of("AWS_ACCESS_KEY_ID", s3.accessKey(),
          "AWS_SECRET_ACCESS_KEY", s3.secretKey(), "AWS_EC2_METADATA_DISABLED", "true");
      Cli.Result listed = listAtTrace(s3, keys);
      assertEquals(0, listed.code(), listed.toString());
      assertNoSecret(listed, s3.accessKey(), s3.secretKey());

      // S3Proxy refuses temporary credentials (HTTP 501), but only after the request, token and all, went out.
      Map<String, String> withToken = new HashMap<>(keys);
      withToken.put("AWS_SESSION_TOKEN", SESSION_TOKEN);
      Cli.Result refused = listAtTrace(s3, withToken);
      assertTrue(refused.err().contains("(HTTP 501)"), "the server answered the signed request: " + refused);
      assertNoSecret(refused, s3.accessKey(), s3.secretKey(), SESSION_TOKEN);
    }
  }

  private Cli.Result listAtTrace(EmbeddedS3 s3, Map<String, String> environment) throws Exception {
    Cli.Result r = ChildCli.run(
        List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=trace", "-Daws.disableEc2Metadata=true"), environment,
        tmp, "list", "--store", "s3://backups/ratis", "--endpoint", s3.endpoint().toString(), "--path-style",
        "--region", s3.region(), "--cluster", "prod-1");
    assertTrue(r.err().contains("DEBUG org.apache.hc.client5") && r.err().contains("DEBUG software.amazon.awssdk"),
        "the libraries logged at debug: " + r);
    return r;
  }

  private static void assertNoSecret(Cli.Result r, String... secrets) {
    for (String secret : secrets) {
      assertFalse(r.out().contains(secret) || r.err().contains(secret), secret + " was logged:\n" + r);
    }
  }
}
