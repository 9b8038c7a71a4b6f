package dev.ratisoffload.restore;

import java.util.List;

/** Every group a restore will write, decided (and every manifest checked) before anything is written. */
public record RestorePlan(RestoreRequest request, List<GroupPlan> groups) {

  public RestorePlan {
    groups = List.copyOf(groups);
  }

  public long totalBytes() {
    return groups.stream().mapToLong(GroupPlan::bytes).sum();
  }
}
