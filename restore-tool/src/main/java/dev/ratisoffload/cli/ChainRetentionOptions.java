package dev.ratisoffload.cli;

import dev.ratisoffload.kafka.gc.ChainRetention;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** How much of each Kafka chain to keep: {@code kafka gc}'s policy, which {@code kafka backup} can apply as it runs. */
public final class ChainRetentionOptions {

  @Option(names = "--keep-within", paramLabel = "DURATION", converter = Converters.RatisDuration.class,
      description = "Keep every segment holding a record this close to the chain's newest record (e.g. 7d).")
  Duration keepWithin;

  @Option(names = "--keep-bytes", paramLabel = "SIZE", converter = Converters.ByteSize.class,
      description = "Keep the newest segments of each partition whose sizes together fit this (e.g. 500GiB).")
  Long keepBytes;

  /** The policy the flags give; empty when neither is given. A bad value is a usage error. */
  Optional<ChainRetention> retention(CommandSpec spec) {
    try {
      return ChainRetention.of(keepWithin, keepBytes);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}
