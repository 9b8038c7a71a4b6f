package dev.ratisoffload.restore;

/** The JVM's heap cannot hold the chunks a copy needs at once: a usage error, fixed with a larger -Xmx. */
public final class HeapTooSmallException extends InvalidRestoreRequestException {

  public HeapTooSmallException(String message) {
    super(message);
  }
}
