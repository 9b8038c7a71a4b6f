package dev.ratisoffload.store;

/**
 * The store answered but refused the operation: access denied, bucket missing, invalid request.
 * Retrying unchanged will not help; the configuration or permissions must change.
 */
public class StoreAccessException extends StoreException {

  public StoreAccessException(String message, Throwable cause) {
    super(message, cause);
  }
}
