package dev.ratisoffload.restore;

import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.store.IntegrityException;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * The verdict on one generation read back in full (or on a named group that has none), and the rule that
 * says which verdicts fail a check: a retention run on a live store may remove a generation while it is
 * read, which is no defect of what the store holds.
 *
 * @param index null for a group with no generation, like {@code term}
 * @param bytes null when the manifest could not be read
 * @param problem what is wrong; null when {@link Verdict#OK}
 */
public record GenerationCheck(String cluster, String group, Long index, Long term, Long bytes, Verdict status,
    String problem) {

  /** What reading a generation back found. */
  public enum Verdict {
    /** Every byte is as the manifest says. */
    OK,
    /** Missing or damaged data, or an unreadable manifest. */
    CORRUPT,
    /** Found damaged, but its manifest was removed meanwhile while its group still has generations. */
    DELETED,
    /** A group named in the selection has no generation stored. */
    MISSING;

    /** Whether a verification record belongs beside the generation: not when the store no longer holds it. */
    public boolean recordable() {
      return this == OK || this == CORRUPT;
    }
  }

  /**
   * Judges a generation read back.
   *
   * @param problem the first defect found, null when none
   * @param removed whether the generation was removed since it was listed
   *     ({@link GenerationCatalog#removedSinceListed}); asked only when there is a defect
   */
  public static GenerationCheck of(GenerationCatalog.Entry entry, IntegrityException problem,
      BooleanSupplier removed) {
    GenerationId id = entry.stored().id();
    Long bytes = entry.manifest() == null ? null : entry.manifest().totalBytes();
    Verdict verdict = problem == null ? Verdict.OK : removed.getAsBoolean() ? Verdict.DELETED : Verdict.CORRUPT;
    String message = switch (verdict) {
      case OK -> null;
      case DELETED -> "removed from the store while it was checked (retention or offload gc), after: "
          + problem.getMessage();
      default -> problem.getMessage();
    };
    return new GenerationCheck(id.cluster(), id.group(), id.index(), id.term(), bytes, verdict, message);
  }

  /** The verdict on a named group of which the store holds no generation. */
  public static GenerationCheck missing(String cluster, String group, String store) {
    return new GenerationCheck(cluster, group, null, null, null, Verdict.MISSING, "no generation of group " + group
        + " of " + (cluster == null ? "any cluster" : "cluster " + cluster) + " is stored in " + store);
  }

  /**
   * The checks that fail, in their order: every one not {@link Verdict#OK}, except a {@link Verdict#DELETED}
   * generation of a group of which another checked generation verified. A generation the store no longer
   * holds is no defect of what it holds, as long as its group had one that verified: else nothing of the
   * group was proven.
   */
  public static List<GenerationCheck> failures(List<GenerationCheck> checks) {
    Set<GenerationCatalog.GroupKey> proven = checks.stream().filter(c -> c.status() == Verdict.OK)
        .map(GenerationCheck::groupKey).collect(Collectors.toSet());
    return checks.stream()
        .filter(c -> c.status() != Verdict.OK && !(c.status() == Verdict.DELETED && proven.contains(c.groupKey())))
        .toList();
  }

  private GenerationCatalog.GroupKey groupKey() {
    return new GenerationCatalog.GroupKey(cluster, group);
  }
}
