package dev.ratisoffload.restore;

/**
 * The restore target cannot take the restore: a group directory already exists, the data directory
 * belongs to another cluster, another restore is writing into it, or it cannot be written. Nothing was
 * moved into place; the message says what to do.
 */
public class TargetRefusedException extends RuntimeException {

  public TargetRefusedException(String message) {
    super(message);
  }

  public TargetRefusedException(String message, Throwable cause) {
    super(message, cause);
  }
}
