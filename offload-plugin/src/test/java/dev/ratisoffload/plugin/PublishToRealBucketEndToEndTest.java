package dev.ratisoffload.plugin;

import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.RealBucket;
import dev.ratisoffload.store.StoreDescription;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.ratis.conf.RaftProperties;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The publish contract against the real bucket {@link RealBucket} names, under a prefix of its own that
 * is emptied afterwards; skipped, with why, without one.
 */
@EnabledIf(value = "dev.ratisoffload.store.RealBucket#configured", disabledReason = RealBucket.NOT_CONFIGURED)
class PublishToRealBucketEndToEndTest extends PublishEndToEndContract {

  private StoreDescription bucket;

  @Override
  RaftProperties startStore(Path tmp) {
    bucket = RealBucket.at("e2e-" + UUID.randomUUID());
    RaftProperties p = new RaftProperties();
    OffloadConfigKeys.Store.setUri(p, bucket.uri().toString());
    return p;
  }

  @Override
  ObjectStore openStore() {
    return bucket.open();
  }

  @Override
  void stopStore() {
    try (ObjectStore store = bucket.open()) {
      RealBucket.empty(store);
    }
  }
}
