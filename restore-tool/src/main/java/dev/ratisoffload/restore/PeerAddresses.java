package dev.ratisoffload.restore;

import dev.ratisoffload.format.Manifest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Gives a group's peers new server addresses when a cluster is restored onto other hosts or ports; every
 * other field of a peer (client, admin and data-stream addresses, priority, role) is kept.
 */
final class PeerAddresses {

  private PeerAddresses() {}

  /**
   * The peers with their new addresses; every peer keeps its id and its other fields.
   *
   * @throws InvalidRestoreRequestException when a peer of the group has no new address
   */
  static List<Manifest.Peer> apply(String group, List<Manifest.Peer> peers, Map<String, String> newAddresses) {
    if (newAddresses.isEmpty()) {
      return peers;
    }
    List<Manifest.Peer> moved = new ArrayList<>();
    for (Manifest.Peer peer : peers) {
      String address = newAddresses.get(peer.id());
      if (address == null) {
        throw new InvalidRestoreRequestException("--peers gives no address for peer " + peer.id()
            + " of group " + group + " (its peers are " + ids(peers) + "); nothing was written."
            + " Give every peer of the group an address");
      }
      moved.add(peer.withAddress(address));
    }
    return moved;
  }

  static String ids(List<Manifest.Peer> peers) {
    return String.join(", ", peers.stream().map(Manifest.Peer::id).toList());
  }
}
