package dev.ratisoffload.store;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The conformance check against a real bucket: {@code OFFLOAD_IT_STORE} names it (a store URI, such as
 * {@code s3://bucket/prefix}), the AWS SDK's default chain gives the credentials and the region. Skipped,
 * with that reason, when either is missing.
 */
@EnabledIfEnvironmentVariable(named = RealBucketConformanceTest.STORE_VARIABLE, matches = ".+",
    disabledReason = RealBucketConformanceTest.STORE_VARIABLE + " is not set: no real bucket to check")
class RealBucketConformanceTest extends LiveStoreConformanceContract {

  static final String STORE_VARIABLE = "OFFLOAD_IT_STORE";

  @BeforeAll
  static void openStore() {
    if (credentialsFound()) {
      store = StoreDescription.parse(Map.of(StoreDescription.Setting.URI, System.getenv(STORE_VARIABLE)),
          Enum::name).open();
    }
  }

  @BeforeEach
  void needsCredentials() {
    assumeTrue(store != null, "no AWS credentials in the default chain for the bucket " + STORE_VARIABLE + " names");
  }

  private static boolean credentialsFound() {
    try (DefaultCredentialsProvider provider = DefaultCredentialsProvider.builder().build()) {
      provider.resolveCredentials();
      return true;
    } catch (SdkException e) {
      return false;
    }
  }
}
