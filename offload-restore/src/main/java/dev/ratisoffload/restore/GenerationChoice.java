package dev.ratisoffload.restore;

import java.time.Instant;

/** Which generation of a group to take. */
public sealed interface GenerationChoice {

  /** The generation with the highest index. */
  record Newest() implements GenerationChoice {}

  /** The generation whose snapshot index is exactly this. */
  record AtIndex(long index) implements GenerationChoice {}

  /** The newest generation created at or before this time. */
  record AtOrBefore(Instant time) implements GenerationChoice {}
}
