package dev.ratisoffload.restore;

import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.Manifest;
import java.util.List;

/**
 * What a restore will write for one group.
 *
 * @param id the chosen generation
 * @param manifest its manifest, already checked against its key
 * @param peers the configuration to write: the manifest's, with addresses replaced as asked
 * @param term the term to start in: the publisher's leader term, never below the snapshot's
 */
public record GroupPlan(GenerationId id, Manifest manifest, List<Manifest.Peer> peers, long term) {

  public GroupPlan {
    peers = List.copyOf(peers);
  }

  public String group() {
    return id.group();
  }

  /** Each peer as reported to the operator: {@code id=address}, with {@code (listener)} for a non-voter. */
  public List<String> peerLabels() {
    return peers.stream().map(p -> p.id() + "=" + p.address()
        + (p.role() == Manifest.Role.LISTENER ? "(listener)" : "")).toList();
  }

  /** Snapshot bytes to transfer. */
  public long bytes() {
    return manifest.totalBytes();
  }
}
