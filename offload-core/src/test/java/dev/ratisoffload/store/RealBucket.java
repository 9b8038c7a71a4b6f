package dev.ratisoffload.store;

import java.util.Map;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The real bucket tests may run against: {@code OFFLOAD_IT_STORE} names it (a store URI such as
 * {@code s3://bucket/prefix}), the AWS SDK's default chains give the credentials and the region. Tests
 * name {@link #configured()} in {@code @EnabledIf} with {@link #NOT_CONFIGURED} as the reason.
 */
public final class RealBucket {

  public static final String STORE_VARIABLE = "OFFLOAD_IT_STORE";
  public static final String NOT_CONFIGURED = STORE_VARIABLE + " (a store URI) and AWS credentials in the"
      + " default chain are not both set: no real bucket to run against";

  private RealBucket() {}

  /** Whether {@code OFFLOAD_IT_STORE} is set and credentials are found. */
  public static boolean configured() {
    String uri = System.getenv(STORE_VARIABLE);
    if (uri == null || uri.isEmpty()) {
      return false;
    }
    try (DefaultCredentialsProvider provider = DefaultCredentialsProvider.builder().build()) {
      provider.resolveCredentials();
      return true;
    } catch (SdkException e) {
      return false;
    }
  }

  /** The store {@code OFFLOAD_IT_STORE} names, at {@code child} under its prefix. */
  public static StoreDescription at(String child) {
    StoreDescription bucket = StoreDescription.parse(
        Map.of(StoreDescription.Setting.URI, System.getenv(STORE_VARIABLE)), Enum::name);
    String prefix = bucket.uri().prefix();
    return bucket.at(StoreUri.parse("s3://" + bucket.uri().bucket() + "/" + (prefix.isEmpty() ? "" : prefix + "/")
        + child));
  }

  /** Deletes every object under {@code store}'s prefix: what a test wrote there. */
  public static void empty(ObjectStore store) {
    for (ObjectInfo object : store.list("")) {
      store.delete(object.key());
    }
  }
}
