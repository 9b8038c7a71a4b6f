package dev.ratisoffload.publish;

import java.util.function.Supplier;

/**
 * Whether a publish may still write its manifest: the peer must still be the leader in the term the
 * publish started in, and the plugin must not be closing. Checked as each chunk is read and again as its
 * upload starts (to stop early: chunks still queued are not stored), and, inside {@link #exclusive},
 * immediately before the manifest is written.
 */
@FunctionalInterface
public interface Fence {

  /** Null when the publish may continue; otherwise the reason it must stop. */
  SkipReason check();

  /**
   * Runs the final check and the manifest write as one step with respect to whatever closes the fence,
   * so that no manifest is written after the closer has returned. By default, just runs it.
   */
  default <T> T exclusive(Supplier<T> checkAndWrite) {
    return checkAndWrite.get();
  }
}
