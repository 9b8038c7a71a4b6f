package dev.ratisoffload.publish;

/**
 * Whether a publish may still write its manifest: the peer must still be the leader in the term the
 * publish started in, and the plugin must not be closing. Checked between chunk uploads (to stop early)
 * and immediately before the manifest is written.
 */
@FunctionalInterface
public interface Fence {

  /** Null when the publish may continue; otherwise the reason it must stop. */
  SkipReason check();
}
