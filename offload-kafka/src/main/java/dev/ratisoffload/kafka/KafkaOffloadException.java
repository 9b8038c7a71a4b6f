package dev.ratisoffload.kafka;

/**
 * A Kafka backup or restore cannot go on. The message says what happened, what was kept and what to
 * do next; {@link #kind()} says what kind of failure it was, so a caller can tell whether retrying may
 * help without reading the message.
 */
public class KafkaOffloadException extends RuntimeException {

  /** What kind of failure it was. */
  public enum Kind {
    /** The request is wrong: an unknown topic or partition, contradictory settings. */
    INVALID,
    /** Backup data missing, corrupt or inconsistent; retrying cannot help. */
    INCONSISTENT,
    /** The broker (or store) is unreachable or failed transiently; retrying may help. */
    UNAVAILABLE,
    /**
     * Refused: the chain belongs to another topic incarnation, another writer was detected, or the
     * cluster refused a request in a way no retry changes (authorization, a config it does not accept).
     */
    REFUSED
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
}
