package dev.ratisoffload.restore;

import dev.ratisoffload.format.Manifest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Gives a group's peers new server addresses when a cluster is restored onto other hosts or ports. A moved
 * peer keeps its id, priority and role but not its published client and admin addresses, which name the
 * old host: without them Ratis 3.3 ({@code GrpcClientProtocolClient}) uses the server address. Its
 * data-stream address, for which Ratis has no such fallback, becomes the new address too.
 */
final class PeerAddresses {

  private PeerAddresses() {}

  /**
   * The peers at their new addresses; every peer keeps its id, priority and role.
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
      moved.add(moved(peer, address));
    }
    return moved;
  }

  private static Manifest.Peer moved(Manifest.Peer peer, String address) {
    String dataStream = peer.dataStreamAddress() == null ? null : address;
    return new Manifest.Peer(peer.id(), address, null, null, dataStream, peer.priority(), peer.role());
  }

  static String ids(List<Manifest.Peer> peers) {
    return String.join(", ", peers.stream().map(Manifest.Peer::id).toList());
  }
}
