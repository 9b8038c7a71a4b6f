package dev.ratisoffload.plugin;

import dev.ratisoffload.publish.PublishResult;
import dev.ratisoffload.store.ObjectStore;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroupId;

/**
 * Lets tests outside the plugin's package run one scheduled pass when they choose (publish, observe, and
 * on the leader a scrub when due), and open the store that a set of plugin keys names.
 */
public final class ScheduledPasses {

  private ScheduledPasses() {}

  /** What the scheduler runs for a group each interval, and the scrub it started, if any, to its end. */
  public static PublishResult run(SnapshotOffload offload, RaftGroupId group) {
    PublishResult result = offload.passNow(group);
    try {
      offload.awaitScrubs();
    } catch (Exception e) {
      throw new IllegalStateException("a scrub of " + group + " did not end", e);
    }
    return result;
  }

  /** The store {@code offload.store.uri} and the {@code offload.s3.*} keys name; the caller closes it. */
  public static ObjectStore openStore(RaftProperties keys) {
    OffloadSettings settings = OffloadSettings.read(keys);
    return settings.store().open();
  }
}
