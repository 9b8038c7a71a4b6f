package dev.ratisoffload.store;

import java.util.List;
import java.util.Optional;

/**
 * What {@link StoreConformance} found.
 *
 * @param store the store checked, as {@link ObjectStore#describe()}
 * @param results one per property checked, in {@link ConformanceProperty} order
 * @param leftBehind the scratch keys that could not be removed, with why; empty when none
 */
public record ConformanceReport(String store, List<ConformanceResult> results, Optional<String> leftBehind) {

  public ConformanceReport {
    results = List.copyOf(results);
  }

  /** True when no property publishing relies on failed. */
  public boolean conformant() {
    return firstFailure().isEmpty();
  }

  /** The first property publishing relies on that the store does not have. */
  public Optional<ConformanceResult> firstFailure() {
    return results.stream().filter(r -> r.verdict() == ConformanceResult.Verdict.FAIL).findFirst();
  }
}
