package dev.ratisoffload.cli;

import picocli.CommandLine.Option;

/** Whether a long transfer shows its progress: on a terminal by default, never when piped. */
public final class ProgressOptions {

  /** auto: only when stdin and stdout are a terminal. */
  enum Mode {
    auto, always, never;

    boolean enabled() {
      return this == always || (this == auto && System.console() != null);
    }
  }

  @Option(names = "--progress", paramLabel = "auto|always|never", defaultValue = "auto",
      description = "Show transfer progress on stderr: auto (on a terminal), always or never.")
  Mode mode = Mode.auto;
}
