package dev.ratisoffload.plugin;

import dev.ratisoffload.format.ChunkingPolicy;
import dev.ratisoffload.primitives.ClusterIds;
import dev.ratisoffload.retention.RetentionPolicy;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreUri;
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
    StoreUri storeUri,
    String clusterId,
    S3Settings s3,
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
    String uriText = OffloadConfigKeys.Store.uri(p);
    StoreUri uri;
    try {
      uri = StoreUri.parse(uriText);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid " + OffloadConfigKeys.Store.URI_KEY + " = '"
          + StoreUri.withoutUserInfo(uriText) + "': " + e.getMessage(), e);
    }
    String clusterId = OffloadConfigKeys.Cluster.id(p);
    if (!ClusterIds.isValid(clusterId)) {
      throw ConfigValues.invalid(OffloadConfigKeys.Cluster.ID_KEY, clusterId,
          "expected 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit");
    }
    S3Settings.Encryption sse = OffloadConfigKeys.S3.sse(p);
    String kmsKeyId = OffloadConfigKeys.S3.sseKmsKeyId(p);
    if (kmsKeyId != null && sse != S3Settings.Encryption.AWS_KMS) {
      throw ConfigValues.invalid(OffloadConfigKeys.S3.SSE_KMS_KEY_ID_KEY, kmsKeyId,
          "a KMS key needs " + OffloadConfigKeys.S3.SSE_KEY + " = aws:kms, not " + sse.word());
    }
    S3Settings s3 = S3Settings.builder()
        .region(OffloadConfigKeys.S3.region(p))
        .endpoint(OffloadConfigKeys.S3.endpoint(p))
        .profile(OffloadConfigKeys.S3.profile(p))
        .pathStyle(OffloadConfigKeys.S3.pathStyle(p))
        .encryption(sse, kmsKeyId)
        .checksum(OffloadConfigKeys.S3.checksum(p))
        .build();
    RetentionPolicy retention = OffloadConfigKeys.Retention.policy(p);
    Duration scrubInterval = toDuration(OffloadConfigKeys.Scrub.interval(p));
    if (retention.isEnabled() && scrubInterval.isZero()) {
      throw ConfigValues.invalid(OffloadConfigKeys.Scrub.INTERVAL_KEY, p.get(OffloadConfigKeys.Scrub.INTERVAL_KEY),
          "retention deletes nothing of a group none of whose generations passed a verification, so scrubbing"
              + " must stay on while an offload.retention rule is set");
    }
    return new OffloadSettings(uri, clusterId, s3, OffloadConfigKeys.Spool.dir(p),
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
