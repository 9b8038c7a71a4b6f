package dev.ratisoffload.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.store.ConformanceResult.Verdict;
import dev.ratisoffload.store.ObjectStore.PutOutcome;
import dev.ratisoffload.testkit.EmbeddedS3;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link StoreConformance} against S3Proxy and a directory store, and against stores that break a property. */
class StoreConformanceTest {

  private static EmbeddedS3 s3;

  @TempDir
  Path tmp;

  @BeforeAll
  static void startS3() throws IOException {
    s3 = EmbeddedS3.start();
    s3.createBucket("conformance");
  }

  @AfterAll
  static void stopS3() throws IOException {
    s3.close();
  }

  private static S3ObjectStore s3Store(S3Settings.Builder settings) {
    return new S3ObjectStore(StoreUri.parse("s3://conformance/backups"), settings.build());
  }

  @Test
  void s3ProxyHasTheVerdictsItsExpectationsList() {
    try (S3ObjectStore store = s3Store(S3ObjectStoreTest.settings(s3, s3.secretKey()))) {
      ConformanceReport report = StoreConformance.check(store);
      assertEquals(ConformanceExpectations.s3Proxy(), ConformanceExpectations.verdicts(report), report.toString());
      assertTrue(report.conformant());
      assertEquals(java.util.Optional.empty(), report.leftBehind());
      assertEquals(java.util.List.of(), store.list(""), "the scratch prefix is removed");
    }
  }

  @Test
  void aDirectoryStoreHasTheVerdictsItsExpectationsList() throws IOException {
    Path root = Files.createDirectories(tmp.resolve("store"));
    ConformanceReport report = StoreConformance.check(new DirectoryObjectStore(root));
    assertEquals(ConformanceExpectations.directory(), ConformanceExpectations.verdicts(report), report.toString());
    try (var left = Files.list(root)) {
      assertEquals(0, left.count(), "no scratch directory is left");
    }
  }

  @Test
  void aStoreThatOverwritesFailsPutIfAbsentAndIsNotConformant() throws IOException {
    ObjectStore store = new OverwritingStore(new DirectoryObjectStore(Files.createDirectories(tmp.resolve("s"))));
    ConformanceReport report = StoreConformance.check(store);
    ConformanceResult failure = report.firstFailure().orElseThrow();
    assertEquals(ConformanceProperty.PUT_IF_ABSENT, failure.property());
    assertEquals(Verdict.FAIL, failure.verdict());
    assertEquals(Verdict.PASS, ConformanceExpectations.verdicts(report).get(ConformanceProperty.RANGED_READ),
        "one failure does not spill into the next check: " + report);
    assertFalse(report.conformant());
  }

  @Test
  void racingWritersThatTheStoreAsksToRetryStillCountAsOneWinner() throws IOException {
    // AWS S3 may answer a conditional write racing another with 409, which the S3 store reports as unavailable
    java.util.concurrent.atomic.AtomicInteger conflicts = new java.util.concurrent.atomic.AtomicInteger();
    ObjectStore store = new ForwardingObjectStore(new DirectoryObjectStore(Files.createDirectories(tmp.resolve("r")))) {
      @Override
      public PutOutcome putIfAbsent(String key, Content content) {
        if (key.endsWith("/concurrent") && conflicts.incrementAndGet() <= 4) {
          throw new StoreUnavailableException("cannot write " + key + ": ConditionalRequestConflict (HTTP 409)", null);
        }
        return delegate.putIfAbsent(key, content);
      }
    };
    ConformanceReport report = StoreConformance.check(store,
        EnumSet.of(ConformanceProperty.CONCURRENT_PUT_IF_ABSENT), StoreConformance.SCRATCH_ROOT);
    assertEquals(Verdict.PASS, report.results().get(0).verdict(), report.toString());
    assertTrue(conflicts.get() > 4, "the refused writers tried again");
  }

  @Test
  void deniedDeletesAreAWarningAndTheScratchObjectsLeftAreNamed() throws IOException {
    ObjectStore store = new ForwardingObjectStore(new DirectoryObjectStore(Files.createDirectories(tmp.resolve("d")))) {
      @Override
      public void delete(String key) {
        throw new StoreAccessException("cannot delete " + key + ": access denied", null);
      }
    };
    ConformanceReport report = StoreConformance.check(store);
    assertEquals(Verdict.WARN, ConformanceExpectations.verdicts(report).get(ConformanceProperty.DELETE));
    assertTrue(report.conformant(), report.toString());
    assertTrue(report.leftBehind().orElseThrow().contains(StoreConformance.SCRATCH_ROOT), report.toString());
  }

  @Test
  void withChecksumsSentOnlyWhenRequiredTheChecksumPropertyIsNotApplicable() {
    try (S3ObjectStore store = s3Store(S3ObjectStoreTest.settings(s3, s3.secretKey())
        .checksum(S3Settings.ChecksumMode.WHEN_REQUIRED))) {
      ConformanceReport report = StoreConformance.check(store, EnumSet.of(ConformanceProperty.CHECKSUM),
          StoreConformance.SCRATCH_ROOT);
      assertEquals(Verdict.NOT_APPLICABLE, report.results().get(0).verdict(), report.toString());
    }
  }

  @Test
  void aStoreThatRefusesTheConfiguredEncryptionFailsThatPropertyInsteadOfLookingUnreachable() {
    // S3Proxy answers a write with AES256 by 501 NotImplemented and takes one without it
    try (S3ObjectStore store = s3Store(S3ObjectStoreTest.settings(s3, s3.secretKey())
        .encryption(S3Settings.Encryption.AES256, null))) {
      ConformanceReport report = StoreConformance.check(store);
      assertEquals(1, report.results().size(), report.toString());
      assertEquals(ConformanceProperty.ENCRYPTION, report.firstFailure().orElseThrow().property());
      assertTrue(report.results().get(0).detail().contains("501"), report.toString());
      assertEquals(java.util.Optional.empty(), report.leftBehind());
    }
  }

  @Test
  void anUnreachableStoreThrowsInsteadOfReporting() throws IOException {
    try (EmbeddedS3 stopped = EmbeddedS3.start()) {
      stopped.createBucket("gone");
      S3Settings.Builder settings = S3ObjectStoreTest.settings(stopped, stopped.secretKey());
      stopped.stop();
      try (S3ObjectStore store = new S3ObjectStore(StoreUri.parse("s3://gone"), settings.build())) {
        assertThrows(StoreUnavailableException.class, () -> StoreConformance.check(store));
      }
    }
  }
}
