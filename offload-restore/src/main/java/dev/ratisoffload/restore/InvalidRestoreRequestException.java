package dev.ratisoffload.restore;

/** The request contradicts what the store holds, e.g. a new address for a peer no group has. */
public class InvalidRestoreRequestException extends IllegalArgumentException {

  public InvalidRestoreRequestException(String message) {
    super(message);
  }
}
