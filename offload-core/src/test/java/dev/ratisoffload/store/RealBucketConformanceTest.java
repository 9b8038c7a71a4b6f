package dev.ratisoffload.store;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.condition.EnabledIf;

/** The conformance check against the real bucket {@link RealBucket} names; skipped, with why, without one. */
@EnabledIf(value = "dev.ratisoffload.store.RealBucket#configured", disabledReason = RealBucket.NOT_CONFIGURED)
class RealBucketConformanceTest extends LiveStoreConformanceContract {

  @BeforeAll
  static void openStore() {
    store = RealBucket.at("conformance").open();
  }
}
