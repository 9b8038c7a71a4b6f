package dev.ratisoffload.restore;

import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.ManifestRules;
import dev.ratisoffload.primitives.ClusterIds;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Which groups a command looks at.
 *
 * @param cluster one cluster, or null for every cluster in the store
 * @param groups group UUIDs, or empty for every group
 */
public record Selection(String cluster, Set<String> groups) {

  public Selection {
    if (cluster != null) {
      ClusterIds.require(cluster);
    }
    groups = java.util.Collections.unmodifiableSet(new LinkedHashSet<>(groups));
    groups.forEach(ManifestRules::requireGroupUuid);
  }

  /** The narrowest key prefix that holds every selected manifest. */
  String prefix() {
    if (cluster == null) {
      return Layout.MANIFESTS;
    }
    return groups.size() == 1 ? Layout.manifestPrefix(cluster, groups.iterator().next())
        : Layout.manifestPrefix(cluster);
  }

  boolean matches(GenerationId id) {
    return (cluster == null || cluster.equals(id.cluster()))
        && (groups.isEmpty() || groups.contains(id.group()));
  }

  /** For messages: "cluster c", "group g of cluster c", "every cluster". */
  public String describe() {
    String where = cluster == null ? "any cluster" : "cluster " + cluster;
    return groups.isEmpty() ? where : "group(s) " + String.join(", ", groups) + " of " + where;
  }
}
