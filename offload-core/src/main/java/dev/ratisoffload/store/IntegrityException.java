package dev.ratisoffload.store;

/**
 * Stored data is not what it must be: different bytes at an immutable key, a hash that does not match,
 * a malformed manifest. Retrying cannot help.
 */
public class IntegrityException extends StoreException {

  public IntegrityException(String message) {
    super(message);
  }

  public IntegrityException(String message, Throwable cause) {
    super(message, cause);
  }
}
