package dev.ratisoffload.cli;

import dev.ratisoffload.primitives.ToolVersion;
import dev.ratisoffload.store.ObjectStore;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.Arrays;
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
        + "store and restores them (offload kafka).",
    subcommands = {ListCommand.class, VerifyCommand.class, RestoreCommand.class, StatusCommand.class,
        GcCommand.class, KafkaCommand.class,
        CommandLine.HelpCommand.class},
    footerHeading = "%nExit codes (every subcommand):%n",
    footer = {
        "  0  success",
        "  1  internal error (a bug: please report it with the output of --verbose)",
        "  2  invalid invocation (also: credentials in a URI, an endpoint that is not",
        "     http(s), a malformed region, a heap too small for the chunks)",
        "  3  backup data missing, corrupt or inconsistent (retrying cannot help)",
        "  4  store or broker unreachable, or another transient failure",
        "     (retrying may help)",
        "  5  target refused: a group directory exists, the directory holds another",
        "     cluster's groups, or another restore is writing into it;",
        "     kafka backup: the store holds an earlier topic of the same name, or",
        "     another backup writes the topic; kafka restore: the target topic is",
        "     not empty, cannot keep the records, holds something else, or another",
        "     writer was detected",
        "  6  status only: a group's newest generation is older than --max-age",
        "",
        "Example:",
        "  offload list --store s3://backups/ratis --cluster orders-prod"})
public final class OffloadCommand implements Runnable {

  @Spec
  private CommandSpec spec;

  @Option(names = "--verbose", scope = ScopeType.INHERIT,
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
    if (Arrays.asList(args).contains("--verbose")) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
    }
    ErrorReporter reporter = new ErrorReporter();
    CommandLine commandLine = new CommandLine(command)
        .setOut(out)
        .setErr(err)
        .setCaseInsensitiveEnumValuesAllowed(true)
        .setExitCodeExceptionMapper(ExitCodes.mapper())
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
        "a subcommand is required: list, verify, restore, status, gc or kafka");
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"offload " + ToolVersion.get()};
    }
  }
}
