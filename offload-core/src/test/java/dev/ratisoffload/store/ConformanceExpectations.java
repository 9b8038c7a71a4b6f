package dev.ratisoffload.store;

import dev.ratisoffload.store.ConformanceResult.Verdict;
import java.util.EnumMap;
import java.util.Map;

/**
 * What each store the suite runs {@link StoreConformance} against is expected to do, property by property:
 * the one place that lists a store's known deviations (docs/design.md's compatibility table cites it).
 */
public final class ConformanceExpectations {

  /** The MinIO release the MinIO tests run and the compatibility table names. */
  public static final String MINIO_IMAGE = "minio/minio:RELEASE.2025-04-22T22-12-26Z";

  private ConformanceExpectations() {}

  /**
   * S3Proxy 4.1.0, filesystem-nio2 backend (testkit's {@code EmbeddedS3}): no deviation. Its put under
   * {@code If-None-Match: *} links the file into place ({@code Files.createLink}, atomic) and its multipart
   * completion honours {@code If-None-Match}; the gaps reported for older S3Proxy versions (a check then a
   * write, the condition ignored on multipart completion) do not occur in this version. No encryption
   * is configured, so that property is not applicable.
   */
  public static Map<ConformanceProperty, Verdict> s3Proxy() {
    Map<ConformanceProperty, Verdict> expected = allPass();
    expected.put(ConformanceProperty.ENCRYPTION, Verdict.NOT_APPLICABLE);
    return expected;
  }

  /** A directory store: the file system's link makes put-if-absent atomic; no S3-only property applies. */
  public static Map<ConformanceProperty, Verdict> directory() {
    Map<ConformanceProperty, Verdict> expected = allPass();
    expected.put(ConformanceProperty.MULTIPART_PUT_IF_ABSENT, Verdict.NOT_APPLICABLE);
    expected.put(ConformanceProperty.CHECKSUM, Verdict.NOT_APPLICABLE);
    expected.put(ConformanceProperty.ENCRYPTION, Verdict.NOT_APPLICABLE);
    return expected;
  }

  private static Map<ConformanceProperty, Verdict> allPass() {
    Map<ConformanceProperty, Verdict> expected = new EnumMap<>(ConformanceProperty.class);
    for (ConformanceProperty property : ConformanceProperty.values()) {
      expected.put(property, Verdict.PASS);
    }
    return expected;
  }

  /** Each property's verdict in a report, for comparing with an expectation. */
  public static Map<ConformanceProperty, Verdict> verdicts(ConformanceReport report) {
    Map<ConformanceProperty, Verdict> verdicts = new EnumMap<>(ConformanceProperty.class);
    report.results().forEach(r -> verdicts.put(r.property(), r.verdict()));
    return verdicts;
  }
}
