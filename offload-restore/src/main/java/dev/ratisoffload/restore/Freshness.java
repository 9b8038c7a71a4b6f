package dev.ratisoffload.restore;

import java.time.Duration;
import java.time.Instant;

/** How fresh a group's backup is: the verdict on its newest generation against an allowed age. */
public enum Freshness {
  /** The newest generation is readable and no older than allowed. */
  OK,
  /** The newest generation is older than allowed. */
  STALE,
  /** The newest generation's manifest cannot be read. */
  CORRUPT,
  /** The group has no generation stored. */
  NEVER;

  /**
   * Judges a group by its newest generation ({@link GenerationCatalog#readNewest}).
   *
   * @param maxAge the allowed age; null: any age is fresh
   */
  public static Freshness of(GenerationCatalog.Entry newest, Instant now, Duration maxAge) {
    if (newest.problem() != null) {
      return CORRUPT;
    }
    return maxAge != null && age(newest, now).compareTo(maxAge) > 0 ? STALE : OK;
  }

  /** How old the newest generation is at {@code now}; its manifest must be readable. */
  public static Duration age(GenerationCatalog.Entry newest, Instant now) {
    return Duration.between(newest.manifest().createdAt(), now);
  }
}
