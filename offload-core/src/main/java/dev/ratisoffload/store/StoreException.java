package dev.ratisoffload.store;

/**
 * A store operation failed. Subclasses say whether retrying may help ({@link #isRetriable()}); the
 * message always names the store and the key involved.
 */
public class StoreException extends RuntimeException {

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public StoreException(String message) {
    super(message);
  }

  /** True when the same call may succeed later (network, throttling, a server restarting). */
  public boolean isRetriable() {
    return false;
  }
}
