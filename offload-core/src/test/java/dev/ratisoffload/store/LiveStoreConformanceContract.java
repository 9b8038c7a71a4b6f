package dev.ratisoffload.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@link StoreConformance} against a store someone runs (MinIO, a real bucket): every property is
 * reported, every property publishing relies on holds, and the scratch prefix is gone afterwards.
 */
abstract class LiveStoreConformanceContract {

  /** Opened by the subclass's {@code @BeforeAll}; null when it skips. */
  static ObjectStore store;

  @AfterAll
  static void closeStore() {
    if (store != null) {
      store.close();
      store = null;
    }
  }

  @Test
  void everyPropertyPublishingReliesOnHoldsAndTheScratchPrefixIsRemoved() {
    ConformanceReport report = StoreConformance.check(store);
    assertEquals(EnumSet.allOf(ConformanceProperty.class), ConformanceExpectations.verdicts(report).keySet(),
        report.toString());
    assertTrue(report.conformant(), report.toString());
    assertEquals(Optional.empty(), report.leftBehind());
    assertEquals(List.of(), store.list(StoreConformance.SCRATCH_ROOT));
  }
}
