package dev.ratisoffload.store;

/**
 * The store refused to delete an object it protects (S3 Object Lock): garbage collection skips and
 * counts it rather than failing.
 */
public class DeleteRefusedException extends StoreAccessException {

  public DeleteRefusedException(String message, Throwable cause) {
    super(message, cause);
  }
}
