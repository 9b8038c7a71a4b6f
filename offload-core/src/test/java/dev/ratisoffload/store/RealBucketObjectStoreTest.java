package dev.ratisoffload.store;

import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The store contract against the real bucket {@link RealBucket} names, under a prefix of its own that is
 * emptied afterwards; skipped, with why, without one.
 */
@EnabledIf(value = "dev.ratisoffload.store.RealBucket#configured", disabledReason = RealBucket.NOT_CONFIGURED)
class RealBucketObjectStoreTest extends ObjectStoreContract {

  private static ObjectStore store;

  @BeforeAll
  static void openStore() {
    store = RealBucket.at("contract-" + UUID.randomUUID()).open();
  }

  @AfterAll
  static void emptyAndClose() {
    try (ObjectStore emptied = store) {
      RealBucket.empty(emptied);
    }
  }

  @Override
  ObjectStore store() {
    return store;
  }
}
