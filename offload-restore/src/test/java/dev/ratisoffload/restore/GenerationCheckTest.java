package dev.ratisoffload.restore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.restore.GenerationCheck.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which verdicts fail a verification: every defect, and a generation removed meanwhile only when nothing of its group verified. */
class GenerationCheckTest {

  private static final String A = "02511d47-d67c-49a3-9011-abb3109a44c1";
  private static final String B = "7e1c6a43-5f0e-4d7b-9a7e-3c0c1f2b9d10";

  @Test
  void aGenerationRemovedWhileCheckedFailsOnlyAGroupOfWhichNothingVerified() {
    GenerationCheck deletedA = check(A, 1, Verdict.DELETED);
    GenerationCheck okA = check(A, 2, Verdict.OK);
    GenerationCheck deletedB = check(B, 1, Verdict.DELETED);

    assertEquals(List.of(), GenerationCheck.failures(List.of(deletedA, okA)));
    assertEquals(List.of(deletedB), GenerationCheck.failures(List.of(deletedA, okA, deletedB)));
    assertEquals(List.of(deletedA), GenerationCheck.failures(List.of(deletedA)));
  }

  @Test
  void corruptAndMissingFailWhateverElseVerified() {
    GenerationCheck corrupt = check(A, 1, Verdict.CORRUPT);
    GenerationCheck missing = GenerationCheck.missing("c", B, "file:///backups");

    assertEquals(List.of(corrupt, missing),
        GenerationCheck.failures(List.of(corrupt, check(A, 2, Verdict.OK), missing, check(B, 3, Verdict.OK))));
    assertTrue(missing.problem().contains("group " + B + " of cluster c"), missing.problem());
  }

  @Test
  void onlyAGenerationTheStoreStillHoldsGetsAVerificationRecord() {
    assertTrue(Verdict.OK.recordable());
    assertTrue(Verdict.CORRUPT.recordable());
    assertFalse(Verdict.DELETED.recordable());
    assertFalse(Verdict.MISSING.recordable());
  }

  private static GenerationCheck check(String group, long index, Verdict verdict) {
    return new GenerationCheck("c", group, index, 1L, 10L, verdict, verdict == Verdict.OK ? null : "problem");
  }
}
