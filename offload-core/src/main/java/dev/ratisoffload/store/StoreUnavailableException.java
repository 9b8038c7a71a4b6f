package dev.ratisoffload.store;

/** The store could not be reached or answered with a transient error; retrying may help. */
public class StoreUnavailableException extends StoreException {

  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }

  @Override
  public boolean isRetriable() {
    return true;
  }
}
