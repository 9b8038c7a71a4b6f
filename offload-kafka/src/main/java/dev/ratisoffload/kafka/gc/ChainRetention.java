package dev.ratisoffload.kafka.gc;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How much of each partition's chain {@code kafka gc} keeps. A segment goes when either rule lets it go,
 * as Kafka's own {@code retention.ms} and {@code retention.bytes} do; the newest segment of a chain always
 * stays, so a backup can continue it.
 *
 * @param keepWithin keep every segment holding a record this close to the chain's newest record (measured
 *     from the newest record, not from now: a backup that stopped does not lose its history as time passes)
 * @param keepBytes keep the newest segments whose sizes together fit this many bytes
 */
public record ChainRetention(Optional<Duration> keepWithin, OptionalLong keepBytes) {

  public ChainRetention {
    if (keepWithin.isEmpty() && keepBytes.isEmpty()) {
      throw new IllegalArgumentException("a retention for Kafka backups needs --keep-within or --keep-bytes");
    }
    if (keepWithin.isPresent() && (keepWithin.get().isNegative() || keepWithin.get().isZero())) {
      throw new IllegalArgumentException("--keep-within must be positive, not " + keepWithin.get());
    }
    if (keepBytes.isPresent() && keepBytes.getAsLong() <= 0) {
      throw new IllegalArgumentException("--keep-bytes must be positive, not " + keepBytes.getAsLong());
    }
  }

  /** A retention from the CLI's two optional flags; empty when neither is given. */
  public static Optional<ChainRetention> of(Duration keepWithin, Long keepBytes) {
    if (keepWithin == null && keepBytes == null) {
      return Optional.empty();
    }
    return Optional.of(new ChainRetention(Optional.ofNullable(keepWithin),
        keepBytes == null ? OptionalLong.empty() : OptionalLong.of(keepBytes)));
  }
}
