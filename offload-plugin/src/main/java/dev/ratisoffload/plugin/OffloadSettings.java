package dev.ratisoffload.plugin;

import dev.ratisoffload.format.ChunkingPolicy;
import dev.ratisoffload.primitives.ClusterIds;
import dev.ratisoffload.retention.RetentionPolicy;
import dev.ratisoffload.store.StoreDescription;
import java.io.File;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.util.TimeDuration;

/**
 * The plugin's configuration, read from {@link RaftProperties} and validated as a whole before
 * anything runs: every problem is an {@link IllegalArgumentException} naming the key and the value.
 */
record OffloadSettings(
    StoreDescription store,
    String clusterId,
    File spoolDir,
    ChunkingPolicy chunking,
    int uploadParallelism,
    long uploadBandwidth,
    Duration interval,
    Duration jitter,
    int concurrency,
    boolean preflightRequired,
    long snapshotTriggerGap,
    RetentionPolicy retention,
    Duration scrubInterval,
    long scrubBandwidth) {

  static OffloadSettings read(RaftProperties p) {
    StoreDescription store = OffloadConfigKeys.Store.description(p);
    String clusterId = OffloadConfigKeys.Cluster.id(p);
    if (!ClusterIds.isValid(clusterId)) {
      throw ConfigValues.invalid(OffloadConfigKeys.Cluster.ID_KEY, clusterId,
          "expected 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit");
    }
    RetentionPolicy retention = OffloadConfigKeys.Retention.policy(p);
    Duration scrubInterval = toDuration(OffloadConfigKeys.Scrub.interval(p));
    if (retention.isEnabled() && scrubInterval.isZero()) {
      throw ConfigValues.invalid(OffloadConfigKeys.Scrub.INTERVAL_KEY, p.get(OffloadConfigKeys.Scrub.INTERVAL_KEY),
          "retention deletes nothing of a group none of whose generations passed a verification, so scrubbing"
              + " must stay on while an offload.retention rule is set");
    }
    return new OffloadSettings(store, clusterId, OffloadConfigKeys.Spool.dir(p),
        OffloadConfigKeys.Upload.chunking(p), OffloadConfigKeys.Upload.parallelism(p),
        OffloadConfigKeys.Upload.bandwidth(p),
        toDuration(OffloadConfigKeys.Schedule.interval(p)), toDuration(OffloadConfigKeys.Schedule.jitter(p)),
        OffloadConfigKeys.Schedule.concurrency(p), OffloadConfigKeys.Preflight.required(p),
        OffloadConfigKeys.Snapshot.triggerGap(p), retention, scrubInterval, OffloadConfigKeys.Scrub.bandwidth(p));
  }

  private static Duration toDuration(TimeDuration d) {
    return Duration.ofNanos(d.toLong(TimeUnit.NANOSECONDS));
  }
}
