package dev.ratisoffload.restore;

import dev.ratisoffload.format.ManifestRules;
import dev.ratisoffload.format.PeerRules;
import dev.ratisoffload.primitives.ClusterIds;
import dev.ratisoffload.primitives.HashedJson;
import dev.ratisoffload.primitives.Printable;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What to restore, and where.
 *
 * @param cluster the cluster whose generations are restored
 * @param groups the groups' UUIDs; empty for every group of the cluster
 * @param choice which generation of each group
 * @param peerAddresses new addresses by peer id, for a cluster that moves; empty to keep the manifests'
 * @param dataDir one peer's Ratis storage directory; each group is restored into a directory named by
 *     its UUID inside it
 * @param peer the peer whose directory it is: only the groups whose configuration names it are restored;
 *     null when every chosen group names the same peers (see {@link PeerSelection})
 */
public record RestoreRequest(String cluster, List<String> groups, GenerationChoice choice,
    Map<String, String> peerAddresses, Path dataDir, String peer) {

  /** A request for a directory that holds every chosen group: they must all name the same peers. */
  public RestoreRequest(String cluster, List<String> groups, GenerationChoice choice,
      Map<String, String> peerAddresses, Path dataDir) {
    this(cluster, groups, choice, peerAddresses, dataDir, null);
  }

  public RestoreRequest {
    ClusterIds.require(cluster);
    groups = List.copyOf(groups);
    groups.forEach(ManifestRules::requireGroupUuid);
    Objects.requireNonNull(choice, "choice");
    peerAddresses = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(peerAddresses));
    Objects.requireNonNull(dataDir, "dataDir");
    if (peer != null && !PeerRules.isValidPeerId(peer)) {
      throw new InvalidRestoreRequestException("--peer '" + Printable.excerpt(peer) + "' is not a peer id ("
          + PeerRules.peerIdRule() + "); nothing was written");
    }
  }
}
