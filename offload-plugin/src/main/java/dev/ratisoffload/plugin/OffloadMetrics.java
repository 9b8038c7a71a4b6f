package dev.ratisoffload.plugin;

import dev.ratisoffload.format.VerificationRecord;
import dev.ratisoffload.publish.PublishResult;
import dev.ratisoffload.retention.GarbageCollector;
import dev.ratisoffload.publish.SkipReason;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.Gauge;
import io.prometheus.client.Histogram;
import io.prometheus.client.SimpleCollector;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The plugin's Prometheus metrics (prefix {@code ratis_offload_}). Every series of a group is created at
 * zero when the group is scheduled, so "never published" is visible and alertable. Labels carry only
 * the group UUID and closed sets of words, never error text.
 *
 * <p>Several servers in one JVM (as embedding tests run three peers) share one set of collectors per
 * registry, since a registry refuses a second collector of the same name: their counters add up, a
 * gauge holds the value any of them set last, and a group's series go when no server holds it.
 */
final class OffloadMetrics {

  private static final Map<CollectorRegistry, OffloadMetrics> SHARED = new HashMap<>();

  private static final String[] GC_KINDS = {"manifest", "chunk"};
  private static final String[] SCRUB_RESULTS = {VerificationRecord.OK, VerificationRecord.DAMAGED};

  private final CollectorRegistry registry;
  private final Counter published;
  private final Counter skipped;
  private final Counter failed;
  private final Gauge lastPublishedIndex;
  private final Gauge lastSuccess;
  private final Gauge storeUp;
  private final Gauge storeConformant;
  private final Histogram duration;
  private final Histogram payload;
  private final Counter uploadedBytes;
  private final Counter gcDeleted;
  private final Counter gcFailed;
  private final Gauge newestGeneration;
  private final Gauge lastVerified;
  private final Gauge damagedGenerations;
  private final Counter scrubbed;
  /** How many attached servers use these collectors, and how many of them schedule each group. */
  private int users;
  private final Map<String, Integer> groupHolders = new HashMap<>();

  /** The registry's metrics, registered by the first server that asks; {@link #release} when closing. */
  static OffloadMetrics acquire(CollectorRegistry registry) {
    synchronized (SHARED) {
      OffloadMetrics metrics = SHARED.computeIfAbsent(registry, OffloadMetrics::new);
      metrics.users++;
      return metrics;
    }
  }

  /** Unregisters everything once the last server using it releases it, leaving the registry as found. */
  void release() {
    synchronized (SHARED) {
      if (--users == 0) {
        SHARED.remove(registry);
        unregister();
      }
    }
  }

  private OffloadMetrics(CollectorRegistry registry) {
    this.registry = registry;
    published = Counter.build("ratis_offload_published_total", "Generations published.")
        .labelNames("group").register(registry);
    skipped = Counter.build("ratis_offload_skipped_total",
            "Publish attempts that did nothing, by reason (a closed set).")
        .labelNames("group", "reason").register(registry);
    failed = Counter.build("ratis_offload_failed_total", "Publish attempts that failed.")
        .labelNames("group").register(registry);
    lastPublishedIndex = Gauge.build("ratis_offload_last_published_index",
            "Log index of the newest generation this peer published.")
        .labelNames("group").register(registry);
    lastSuccess = Gauge.build("ratis_offload_last_success_timestamp_seconds",
            "Unix time of this peer's newest successful publish; 0 if none since start.")
        .labelNames("group").register(registry);
    storeUp = Gauge.build("ratis_offload_store_up",
        "1 if the last operation on the store succeeded, 0 if it could not be reached.").register(registry);
    storeConformant = Gauge.build("ratis_offload_store_conformant",
        "1 if the start-up check found every store property publishing relies on, 0 otherwise.")
        .register(registry);
    duration = Histogram.build("ratis_offload_publish_duration_seconds", "Duration of successful publishes.")
        .labelNames("group").buckets(0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600).register(registry);
    payload = Histogram.build("ratis_offload_payload_bytes", "Snapshot bytes of each published generation.")
        .labelNames("group").exponentialBuckets(1024, 8, 10).register(registry);
    uploadedBytes = Counter.build("ratis_offload_uploaded_bytes_total",
            "Bytes uploaded, after de-duplication against stored chunks.")
        .labelNames("group").register(registry);
    gcDeleted = Counter.build("ratis_offload_gc_deleted_total",
            "Objects deleted by garbage collection, by kind (manifest or chunk).")
        .labelNames("group", "kind").register(registry);
    gcFailed = Counter.build("ratis_offload_gc_failed_total",
            "Garbage collections that stopped early (a store error or a manifest that cannot be read).")
        .labelNames("group").register(registry);
    newestGeneration = Gauge.build("ratis_offload_newest_generation_timestamp_seconds",
            "Creation time (Unix) of the group's newest generation in the store, read by every peer;"
                + " 0 while the store holds none.")
        .labelNames("group").register(registry);
    lastVerified = Gauge.build("ratis_offload_last_verified_timestamp_seconds",
            "Time (Unix) of the newest verification record of any of the group's generations in the store;"
                + " 0 while none was verified.")
        .labelNames("group").register(registry);
    damagedGenerations = Gauge.build("ratis_offload_damaged_generations",
            "Generations of the group whose latest verification found damage.")
        .labelNames("group").register(registry);
    scrubbed = Counter.build("ratis_offload_scrubs_total", "Scrubs this peer ran, by result (ok or damaged).")
        .labelNames("group", "result").register(registry);
  }

  /** Creates every series of the group at zero, unless another server here holds the group already. */
  void addGroup(String group) {
    synchronized (SHARED) {
      if (groupHolders.merge(group, 1, Integer::sum) > 1) {
        return;
      }
    }
    forEachSeries(group, SimpleCollector::labels);
  }

  /** Drops the series of a group this server no longer hosts, once no other server here holds it. */
  void removeGroup(String group) {
    synchronized (SHARED) {
      if (groupHolders.merge(group, -1, Integer::sum) > 0) {
        return;
      }
      groupHolders.remove(group);
    }
    forEachSeries(group, SimpleCollector::remove);
  }

  /** Every labelled series of one group, so that adding and removing a group cannot list different ones. */
  private void forEachSeries(String group, BiConsumer<SimpleCollector<?>, String[]> action) {
    for (SimpleCollector<?> perGroup : List.of(published, failed, lastPublishedIndex, lastSuccess, duration, payload,
        uploadedBytes, gcFailed, newestGeneration, lastVerified, damagedGenerations)) {
      action.accept(perGroup, new String[] {group});
    }
    for (SkipReason reason : SkipReason.values()) {
      action.accept(skipped, new String[] {group, reason.label()});
    }
    for (String kind : GC_KINDS) {
      action.accept(gcDeleted, new String[] {group, kind});
    }
    for (String result : SCRUB_RESULTS) {
      action.accept(scrubbed, new String[] {group, result});
    }
  }

  void recordGc(String group, GarbageCollector.GcReport report) {
    gcDeleted.labels(group, "manifest").inc(report.applied() ? report.expiredManifests().size() : 0);
    gcDeleted.labels(group, "chunk").inc(report.applied() ? report.deletedChunks() : 0);
    if (report.failure() != null) {
      gcFailed.labels(group).inc();
    }
  }

  void record(String group, PublishResult result) {
    if (result instanceof PublishResult.Published p) {
      published.labels(group).inc();
      lastPublishedIndex.labels(group).set(p.id().index());
      lastSuccess.labels(group).setToCurrentTime();
      duration.labels(group).observe(p.duration().toNanos() / 1e9);
      payload.labels(group).observe(p.totalBytes());
      uploadedBytes.labels(group).inc(p.uploadedBytes());
    } else if (result instanceof PublishResult.Skipped s) {
      skipped.labels(group, s.reason().label()).inc();
    } else {
      failed.labels(group).inc();
    }
  }

  void storeUp(boolean up) {
    storeUp.set(up ? 1 : 0);
  }

  void storeConformant(boolean conformant) {
    storeConformant.set(conformant ? 1 : 0);
  }

  /** The creation time of the group's newest generation in the store; null when it holds none (0). */
  void newestGeneration(String group, Instant createdAt) {
    newestGeneration.labels(group).set(createdAt == null ? 0 : createdAt.toEpochMilli() / 1000.0);
  }

  /** What the store says of the group's verifications: the newest one's time, and how many are damaged. */
  void verifications(String group, Instant lastVerifiedAt, int damaged) {
    lastVerified.labels(group).set(lastVerifiedAt == null ? 0 : lastVerifiedAt.toEpochMilli() / 1000.0);
    damagedGenerations.labels(group).set(damaged);
  }

  void scrubbed(String group, VerificationRecord record) {
    scrubbed.labels(group, record.result()).inc();
  }

  private void unregister() {
    for (io.prometheus.client.Collector c : new io.prometheus.client.Collector[] {
        published, skipped, failed, lastPublishedIndex, lastSuccess, storeUp, storeConformant, duration, payload,
        uploadedBytes, gcDeleted, gcFailed, newestGeneration, lastVerified, damagedGenerations, scrubbed}) {
      registry.unregister(c);
    }
  }
}
