package dev.ratisoffload.cli;

import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.restore.InvalidRestoreRequestException;
import dev.ratisoffload.restore.TargetRefusedException;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectNotFoundException;
import dev.ratisoffload.store.StoreException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The exit codes of every {@code offload} subcommand: which failure yields which, and what each means in
 * {@code --help} ({@link InUsageHelp}).
 */
public final class ExitCodes implements CommandLine.IExitCodeExceptionMapper {

  public static final int OK = 0;
  /** A bug: an exception nobody expected. */
  public static final int INTERNAL = 1;
  /** Invalid invocation. */
  public static final int USAGE = 2;
  /** Backup data missing, corrupt or inconsistent: retrying cannot help. */
  public static final int DATA = 3;
  /** Store unreachable or another transient failure: retrying may help. */
  public static final int UNAVAILABLE = 4;
  /** The target refused: a group directory exists, another cluster's or another writer's directory. */
  public static final int REFUSED = 5;
  /** {@code status --max-age}: a group's newest generation is too old. */
  public static final int STALE = 6;

  @Override
  public int getExitCode(Throwable failure) {
    return of(failure);
  }

  public static int of(Throwable failure) {
    if (failure instanceof KafkaOffloadException kafka) {
      return switch (kafka.kind()) {
        case INVALID -> USAGE;
        case INCONSISTENT -> DATA;
        case UNAVAILABLE -> UNAVAILABLE;
        case REFUSED -> REFUSED;
      };
    }
    if (failure instanceof CommandLine.ParameterException
        || failure instanceof InvalidRestoreRequestException) {
      return USAGE;
    }
    if (failure instanceof IntegrityException || failure instanceof ObjectNotFoundException) {
      return DATA;
    }
    if (failure instanceof StoreException || failure instanceof UncheckedIOException) {
      // Unavailable or access refused (StoreAccessException): the store, not the data, is the problem.
      // An UncheckedIOException comes from a store read that broke off.
      return UNAVAILABLE;
    }
    if (failure instanceof TargetRefusedException) {
      return REFUSED;
    }
    return INTERNAL;
  }

  private ExitCodes() {}

  static ExitCodes mapper() {
    return new ExitCodes();
  }

  /** What each code means, as {@code --help} lists it (picocli wraps the lines). */
  private static Map<String, String> meanings() {
    Map<String, String> meanings = new LinkedHashMap<>();
    meanings.put(code(OK), "success");
    meanings.put(code(INTERNAL), "internal error (a bug: please report it with the output of --verbose)");
    meanings.put(code(USAGE), "invalid invocation (also: credentials in a URI, an endpoint that is not http(s), "
        + "a malformed region, a heap too small for the chunks)");
    meanings.put(code(DATA), "backup data missing, corrupt or inconsistent (retrying cannot help); store "
        + "check: the store lacks a property publishing relies on");
    meanings.put(code(UNAVAILABLE), "store or broker unreachable, or another transient failure (retrying may help)");
    meanings.put(code(REFUSED), "target refused: a group directory exists, the directory holds another cluster's "
        + "groups, or another restore is writing into it; kafka backup: the store holds an earlier topic of the "
        + "same name, or another backup writes the topic; kafka restore: the target topic is not empty, cannot "
        + "keep the records, holds something else, or another writer was detected; kafka: the cluster refused a request (authorization, "
        + "a topic config it does not accept, any error Kafka does not retry)");
    meanings.put(code(STALE), "status only: a group's newest generation is older than --max-age");
    return meanings;
  }

  private static String code(int code) {
    return String.valueOf(code);
  }

  /**
   * Puts the exit codes into the usage help of a command and every subcommand under it, so that each
   * {@code --help} lists them from this one table. Named by {@code @Command(modelTransformer = ...)}
   * on the top command.
   */
  static final class InUsageHelp implements CommandLine.IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec command) {
      command.usageMessage().exitCodeListHeading("%nExit codes (every subcommand):%n").exitCodeList(meanings());
      command.subcommands().values().forEach(sub -> transform(sub.getCommandSpec()));
      return command;
    }
  }
}
