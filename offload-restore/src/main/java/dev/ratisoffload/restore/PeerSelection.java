package dev.ratisoffload.restore;

import dev.ratisoffload.format.Manifest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which chosen groups belong in one peer's storage directory: those whose published configuration names
 * the peer (voting or listener). In a multi-Raft cluster most groups live on a few peers, and a group
 * written where its configuration does not name the peer is a group that peer would serve by mistake.
 */
public final class PeerSelection {

  private PeerSelection() {}

  /**
   * The plan narrowed to the groups whose configuration names {@code peer}; the others are recorded as
   * skipped, with why. Empty when no group names the peer.
   */
  public static RestorePlan forPeer(RestorePlan plan, String peer) {
    List<GroupPlan> held = new ArrayList<>();
    List<RestorePlan.Skipped> skipped = new ArrayList<>(plan.skipped());
    for (GroupPlan group : plan.groups()) {
      if (peerIds(group).contains(peer)) {
        held.add(group);
      } else {
        skipped.add(new RestorePlan.Skipped(group.group(), List.copyOf(peerIds(group)),
            "its configuration does not name peer " + peer));
      }
    }
    return new RestorePlan(plan.request(), held, skipped);
  }

  /**
   * The plan for the request's peer ({@link #forPeer}), or, without one, the whole plan when every group
   * names the same peers, so that every peer's directory holds them all.
   *
   * @throws InvalidRestoreRequestException when the peer holds no chosen group, or, without a peer, when
   *     the groups live on different peers (the message lists each peer with its groups)
   */
  static RestorePlan select(RestorePlan plan, String peer) {
    if (peer != null) {
      RestorePlan held = forPeer(plan, peer);
      if (held.groups().isEmpty()) {
        throw new InvalidRestoreRequestException("no chosen group's configuration names peer " + peer
            + "; nothing was written. " + listing(plan) + ". Give one of these peer ids to --peer");
      }
      return held;
    }
    Set<Set<String>> configurations = new HashSet<>();
    plan.groups().forEach(group -> configurations.add(peerIds(group)));
    if (configurations.size() > 1) {
      throw new InvalidRestoreRequestException("the chosen groups live on different peers, so no one"
          + " peer's directory holds them all; nothing was written. " + listing(plan) + ". Run one restore"
          + " per peer with --peer ID and that peer's --data-dir");
    }
    return plan;
  }

  /** Each peer id with the groups whose configuration names it, peers in id order. */
  public static Map<String, List<String>> groupsByPeer(List<GroupPlan> groups) {
    Map<String, List<String>> byPeer = new LinkedHashMap<>();
    for (GroupPlan group : groups) {
      for (String id : peerIds(group)) {
        byPeer.computeIfAbsent(id, k -> new ArrayList<>()).add(group.group());
      }
    }
    Map<String, List<String>> sorted = new LinkedHashMap<>();
    new TreeSet<>(byPeer.keySet()).forEach(id -> sorted.put(id, byPeer.get(id)));
    return sorted;
  }

  private static String listing(RestorePlan plan) {
    List<String> lines = new ArrayList<>();
    groupsByPeer(plan.groups()).forEach((id, groups) -> lines.add("peer " + id + " holds " + groups.size()
        + " group(s): " + String.join(", ", groups)));
    return "Peers and their groups: " + String.join("; ", lines);
  }

  private static Set<String> peerIds(GroupPlan group) {
    Set<String> ids = new TreeSet<>();
    group.peers().stream().map(Manifest.Peer::id).forEach(ids::add);
    return ids;
  }
}
