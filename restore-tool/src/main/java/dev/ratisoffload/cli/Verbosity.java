package dev.ratisoffload.cli;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code --verbose}: the stack trace of a failure and the libraries' logs. Read from the parsed option of
 * the command that runs, whichever declares it: {@code offload} (inherited by every subcommand) or a script
 * run by {@link OffloadCommand#runCommand}.
 */
final class Verbosity {

  static final String OPTION = "--verbose";

  private Verbosity() {}

  /** Whether the command's {@code --verbose} (its own or the one it inherits) was given. */
  static boolean requested(CommandLine command) {
    OptionSpec option = command.getCommandSpec().findOption(OPTION);
    return option != null && Boolean.TRUE.equals(option.getValue());
  }

  /**
   * The execution strategy: runs the last subcommand, as picocli does by default, with the libraries'
   * logs switched on first when asked for (slf4j-simple reads the level when the first logger is made).
   */
  static int execute(CommandLine.ParseResult parsed) {
    List<CommandLine> commands = parsed.asCommandLineList();
    if (requested(commands.get(commands.size() - 1))) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
    }
    return new CommandLine.RunLast().execute(parsed);
  }
}
