package dev.ratisoffload.cli;

import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.restore.InvalidRestoreRequestException;
import dev.ratisoffload.restore.TargetRefusedException;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectNotFoundException;
import dev.ratisoffload.store.StoreException;
import java.io.UncheckedIOException;
import picocli.CommandLine;

/** The exit codes of every {@code offload} subcommand, and which failure yields which. */
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
      return kafka.exitCode();
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
}
