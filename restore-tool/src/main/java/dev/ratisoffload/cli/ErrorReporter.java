package dev.ratisoffload.cli;

import dev.ratisoffload.primitives.Printable;
import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * Turns every failure into one line on stderr and its exit code; the stack trace only with
 * {@code --verbose}.
 */
final class ErrorReporter implements CommandLine.IExecutionExceptionHandler,
    CommandLine.IParameterExceptionHandler {

  /** A command that can tell the operator what its failure left behind and what to do next. */
  interface Advising {
    /** A sentence to add to the error line for this exit code, or null. */
    String advice(int exitCode);
  }

  @Override
  public int handleParseException(CommandLine.ParameterException e, String[] args) {
    CommandLine command = e.getCommandLine();
    PrintWriter err = command.getErr();
    err.println(command.getCommandName().equals("offload")
        ? "offload: " + oneLine(e.getMessage()) + " (see 'offload --help')"
        : qualifiedName(command) + ": " + oneLine(e.getMessage()) + " (see '" + qualifiedName(command)
            + " --help')");
    err.flush();
    return ExitCodes.USAGE;
  }

  @Override
  public int handleExecutionException(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
    int code = command.getExitCodeExceptionMapper() != null
        ? command.getExitCodeExceptionMapper().getExitCode(e) : ExitCodes.of(e);
    PrintWriter err = command.getErr();
    String message;
    if (code == ExitCodes.INTERNAL) {
      message = "internal error: " + e.getClass().getName() + ": " + oneLine(String.valueOf(e.getMessage()))
          + ". This is a bug; nothing more was written. Please report it with the output of the same"
          + " command run with --verbose";
    } else {
      message = oneLine(e.getMessage());
      if (command.getCommand() instanceof Advising advising) {
        String advice = advising.advice(code);
        if (advice != null) {
          message = message + (message.endsWith(".") ? " " : ". ") + advice;
        }
      }
    }
    err.println(qualifiedName(command) + ": " + message);
    if (Verbosity.requested(command)) {
      e.printStackTrace(err);
    }
    err.flush();
    return code;
  }

  private static String qualifiedName(CommandLine command) {
    return command.getCommandSpec().qualifiedName();
  }

  /**
   * Messages from libraries may span lines; the operator gets one. Messages often quote what a store
   * holds, so the line is made printable ({@link Printable}).
   */
  static String oneLine(String message) {
    if (message == null) {
      return "(no message)";
    }
    String line = Printable.of(message.replaceAll("\\s*[\\r\\n]+\\s*", " ").trim());
    return line.length() > 1000 ? line.substring(0, 1000) + "..." : line;
  }
}
