package dev.ratisoffload.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import java.time.Instant;
import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Servers of one JVM share a registry's collectors; the end-to-end tests attach three to the default one. */
class OffloadMetricsTest {

  private static Double newest(CollectorRegistry registry, String group) {
    return registry.getSampleValue("ratis_offload_newest_generation_timestamp_seconds",
        new String[] {"group"}, new String[] {group});
  }

  @Test
  void serversSharingARegistryShareItsSeriesUntilTheLastReleasesThem() {
    CollectorRegistry registry = new CollectorRegistry();
    OffloadMetrics first = OffloadMetrics.acquire(registry);
    OffloadMetrics second = OffloadMetrics.acquire(registry);
    first.addGroup("g");
    second.addGroup("g");
    assertEquals(0.0, newest(registry, "g"), "created at zero");
    second.newestGeneration("g", Instant.ofEpochSecond(1_700_000_000));
    first.removeGroup("g");
    assertEquals(1.7e9, newest(registry, "g"), "kept while another server holds the group");
    second.removeGroup("g");
    assertNull(newest(registry, "g"), "dropped when no server holds it");
    first.release();
    assertEquals(0.0, registry.getSampleValue("ratis_offload_store_up"), "registered while one server uses it");
    second.release();
    assertNull(registry.getSampleValue("ratis_offload_store_up"), "the registry is left as it was found");
    OffloadMetrics.acquire(registry).release(); // and can be registered again
  }

  @Test
  void aGroupRemovedLeavesNoSeriesBehind() {
    CollectorRegistry registry = new CollectorRegistry();
    OffloadMetrics metrics = OffloadMetrics.acquire(registry);
    metrics.addGroup("g");
    Set<String> created = seriesOf(registry, "g");
    assertTrue(created.contains("ratis_offload_scrubs_total") && created.contains("ratis_offload_skipped_total")
        && created.contains("ratis_offload_newest_generation_timestamp_seconds"), "created: " + created);
    metrics.removeGroup("g");
    assertEquals(Set.of(), seriesOf(registry, "g"), "left behind");
    metrics.release();
  }

  private static Set<String> seriesOf(CollectorRegistry registry, String group) {
    Set<String> names = new TreeSet<>();
    for (Collector.MetricFamilySamples family : Collections.list(registry.metricFamilySamples())) {
      for (Collector.MetricFamilySamples.Sample sample : family.samples) {
        int label = sample.labelNames.indexOf("group");
        if (label >= 0 && sample.labelValues.get(label).equals(group)) {
          names.add(sample.name);
        }
      }
    }
    return names;
  }
}
