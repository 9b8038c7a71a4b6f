package dev.ratisoffload.publish;

import dev.ratisoffload.format.Layout.GenerationId;
import java.time.Duration;

/** What one publish attempt did. */
public sealed interface PublishResult {

  /** A new generation is stored. */
  record Published(GenerationId id, String manifestKey, long uploadedBytes, long totalBytes,
      int uploadedChunks, int totalChunks, Duration duration) implements PublishResult {}

  /** Nothing was published, for an expected reason. */
  record Skipped(SkipReason reason, String detail) implements PublishResult {}

  /** The attempt failed; no manifest was written. */
  record Failed(String message, Throwable cause) implements PublishResult {}
}
