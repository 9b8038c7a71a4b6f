package dev.ratisoffload.cli;

import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.RealBucket;
import dev.ratisoffload.store.StoreDescription;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The restore contract on the real bucket {@link RealBucket} names, under a prefix of its own that is
 * emptied afterwards; skipped, with why, without one. The command line finds the bucket's region and
 * credentials through the AWS SDK's default chains, as an operator's would.
 */
@EnabledIf(value = "dev.ratisoffload.store.RealBucket#configured", disabledReason = RealBucket.NOT_CONFIGURED)
class RestoreFromRealBucketEndToEndTest extends RestoreEndToEndContract {

  private StoreDescription bucket;

  @Override
  String startStore() {
    bucket = RealBucket.at("restore-" + UUID.randomUUID());
    return bucket.uri().toString();
  }

  @Override
  List<String> storeFlags() {
    return List.of();
  }

  @Override
  ObjectStore openStore() {
    return bucket.open();
  }

  @Override
  void stopStore() {
    if (bucket != null) {
      try (ObjectStore store = bucket.open()) {
        RealBucket.empty(store);
      }
    }
  }
}
