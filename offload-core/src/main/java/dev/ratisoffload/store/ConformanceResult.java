package dev.ratisoffload.store;

/**
 * One property's verdict and what was seen.
 *
 * @param detail what the check observed (for a failure, what the store did instead)
 */
public record ConformanceResult(ConformanceProperty property, Verdict verdict, String detail) {

  /** PASS: the store has the property; FAIL or WARN: it does not (FAIL when publishing relies on it). */
  public enum Verdict { PASS, FAIL, WARN, NOT_APPLICABLE;

    /** As printed: N/A for {@link #NOT_APPLICABLE}. */
    public String word() {
      return this == NOT_APPLICABLE ? "N/A" : name();
    }
  }

  static ConformanceResult holds(ConformanceProperty property, String detail) {
    return new ConformanceResult(property, Verdict.PASS, detail);
  }

  static ConformanceResult fails(ConformanceProperty property, String detail) {
    return new ConformanceResult(property, property.publishingReliesOn() ? Verdict.FAIL : Verdict.WARN, detail);
  }

  static ConformanceResult notApplicable(ConformanceProperty property, String why) {
    return new ConformanceResult(property, Verdict.NOT_APPLICABLE, why);
  }
}
