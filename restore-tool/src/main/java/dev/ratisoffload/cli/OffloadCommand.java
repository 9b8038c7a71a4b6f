package dev.ratisoffload.cli;

import dev.ratisoffload.primitives.ToolVersion;
import dev.ratisoffload.store.ObjectStore;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** {@code offload}: lists, verifies and restores the generations the offload plugin publishes. */
@Command(name = "offload",
    mixinStandardHelpOptions = true,
    versionProvider = OffloadCommand.Version.class,
    description = "Lists, verifies and restores the Ratis snapshot generations that the offload plugin "
        + "publishes, reports how fresh they are, and collects garbage; backs up Kafka topics into the same "
        + "store and restores them (offload kafka); checks the store itself (offload store check).",
    subcommands = {ListCommand.class, VerifyCommand.class, RestoreCommand.class, StatusCommand.class,
        GcCommand.class, KafkaCommand.class, StoreGroupCommand.class,
        CommandLine.HelpCommand.class},
    modelTransformer = ExitCodes.InUsageHelp.class,
    footerHeading = "%nExample:%n",
    footer = "  offload list --store s3://backups/ratis --cluster orders-prod")
public final class OffloadCommand implements Runnable {

  @Spec
  private CommandSpec spec;

  /** Read through picocli by {@link Verbosity}, from whichever subcommand runs. */
  @Option(names = Verbosity.OPTION, scope = ScopeType.INHERIT,
      description = "Print the stack trace of a failure (and library logs).")
  boolean verbose;

  private final Function<StoreOptions, ObjectStore> storeOpener;
  private final Clock clock;

  public OffloadCommand() {
    this(StoreOptions::open, Clock.systemUTC());
  }

  /** For tests: another way to open stores, another clock. */
  OffloadCommand(Function<StoreOptions, ObjectStore> storeOpener, Clock clock) {
    this.storeOpener = storeOpener;
    this.clock = clock;
  }

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line like {@link #main} does, but returns the exit code instead of exiting. */
  public static int run(String... args) {
    PrintWriter out = new PrintWriter(System.out, true);
    PrintWriter err = new PrintWriter(System.err, true);
    return run(new OffloadCommand(), out, err, args);
  }

  /** Runs the command line with its output and errors sent to these writers; returns the exit code. */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    return run(new OffloadCommand(), out, err, args);
  }

  /**
   * Runs another picocli command, such as one of the scripts in {@code scripts/}, the way {@code offload}
   * runs its own: the same exit codes ({@link ExitCodes}) for the same failures, a usage error or a
   * failure as one line on stderr, the stack trace only with {@code --verbose}.
   */
  public static int runCommand(Object command, String... args) {
    return run(command, new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
  }

  static int run(Object command, PrintWriter out, PrintWriter err, String... args) {
    ErrorReporter reporter = new ErrorReporter();
    CommandLine commandLine = new CommandLine(command)
        .setOut(out)
        .setErr(err)
        .setCaseInsensitiveEnumValuesAllowed(true)
        .setExitCodeExceptionMapper(ExitCodes.mapper())
        .setExecutionStrategy(Verbosity::execute)
        .setExecutionExceptionHandler(reporter)
        .setParameterExceptionHandler(reporter);
    int code = commandLine.execute(args);
    out.flush();
    err.flush();
    return code;
  }

  ObjectStore openStore(StoreOptions options) {
    return storeOpener.apply(options);
  }

  Clock clock() {
    return clock;
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(),
        "a subcommand is required: list, verify, restore, status, gc, kafka or store");
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"offload " + ToolVersion.get()};
    }
  }
}
