package dev.ratisoffload.restore;

import java.util.List;

/**
 * Every group a restore will write, decided (and every manifest checked) before anything is written,
 * and the chosen groups it leaves out because they do not belong in the peer's directory.
 */
public record RestorePlan(RestoreRequest request, List<GroupPlan> groups, List<Skipped> skipped) {

  /** A chosen group left out, with its configuration's peer ids and why. */
  public record Skipped(String group, List<String> peers, String reason) {
    public Skipped {
      peers = List.copyOf(peers);
    }
  }

  public RestorePlan {
    groups = List.copyOf(groups);
    skipped = List.copyOf(skipped);
  }

  /** A plan that leaves nothing out. */
  public RestorePlan(RestoreRequest request, List<GroupPlan> groups) {
    this(request, groups, List.of());
  }

  public long totalBytes() {
    return groups.stream().mapToLong(GroupPlan::bytes).sum();
  }
}
