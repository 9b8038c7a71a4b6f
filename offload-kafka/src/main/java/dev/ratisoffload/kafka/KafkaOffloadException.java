package dev.ratisoffload.kafka;

/**
 * A Kafka backup or restore cannot go on. The message says what happened, what was kept and what to
 * do next; {@link #kind()} says which exit code of the {@code offload} command it means.
 */
public class KafkaOffloadException extends RuntimeException {

  /** The classes of failure the command line maps to its exit codes. */
  public enum Kind {
    /** The invocation is wrong: an unknown topic or partition, contradictory settings (exit 2). */
    INVALID(2),
    /** Backup data missing, corrupt or inconsistent; retrying cannot help (exit 3). */
    INCONSISTENT(3),
    /** The broker (or store) is unreachable or failed transiently; retrying may help (exit 4). */
    UNAVAILABLE(4),
    /** Refused: the chain belongs to another topic incarnation, or another writer was detected (exit 5). */
    REFUSED(5);

    private final int exitCode;

    Kind(int exitCode) {
      this.exitCode = exitCode;
    }

    public int exitCode() {
      return exitCode;
    }
  }

  private final Kind kind;

  public KafkaOffloadException(Kind kind, String message) {
    super(message);
    this.kind = kind;
  }

  public KafkaOffloadException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }

  public int exitCode() {
    return kind.exitCode();
  }
}
