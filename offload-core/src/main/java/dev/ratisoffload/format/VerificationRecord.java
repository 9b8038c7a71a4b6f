package dev.ratisoffload.format;

import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.primitives.ToolVersion;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * What one verification of a stored generation found, kept as an immutable object beside the
 * generation ({@link Layout#verificationKey}): when, by whom, the result, and every chunk found damaged
 * with where it was moved aside. Retention reads the results from the keys; the body is for people.
 *
 * @param result {@link #OK} or {@link #DAMAGED}
 * @param damaged every chunk found missing or wrong (empty when the result is {@code ok})
 * @param note what else the operator should know (a chunk that could not be moved aside, a manifest
 *     that could not be read); null when there is nothing
 */
public record VerificationRecord(
    int format,
    String cluster,
    String group,
    long term,
    long index,
    Instant verifiedAt,
    String verifiedBy,
    String result,
    List<Damage> damaged,
    String note,
    String toolVersion) {

  public static final int FORMAT_VERSION = 1;
  public static final String OK = "ok";
  public static final String DAMAGED = "damaged";

  public VerificationRecord {
    damaged = damaged == null ? null : List.copyOf(damaged);
  }

  /** A record of the current format for a generation, its time in milliseconds as its key has it. */
  public static VerificationRecord of(GenerationId id, Instant verifiedAt, String verifiedBy,
      List<Damage> damaged, String note) {
    return new VerificationRecord(FORMAT_VERSION, id.cluster(), id.group(), id.term(), id.index(),
        verifiedAt.truncatedTo(ChronoUnit.MILLIS),
        verifiedBy, damaged.isEmpty() && note == null ? OK : DAMAGED, damaged, note, ToolVersion.get());
  }

  public boolean ok() {
    return OK.equals(result);
  }

  public GenerationId generation() {
    return new GenerationId(cluster, group, term, index);
  }

  /**
   * One damaged chunk.
   *
   * @param problem {@code missing}, {@code wrong-size} or {@code wrong-content}
   * @param keptAt where the damaged bytes were moved (a key under {@link Layout#DAMAGED}); null when
   *     there was nothing to move (missing) or the store refused to let them move
   */
  public record Damage(String sha256, String problem, String keptAt) {
    public static final String MISSING = "missing";
    public static final String WRONG_SIZE = "wrong-size";
    public static final String WRONG_CONTENT = "wrong-content";
  }
}
