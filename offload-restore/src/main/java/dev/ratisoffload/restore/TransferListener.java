package dev.ratisoffload.restore;

/** Hears how many bytes a long transfer has moved, e.g. to show progress. Called from one thread. */
public interface TransferListener {

  TransferListener NONE = new TransferListener() {};

  /** The transfer starts; {@code totalBytes} will be reported in all. */
  default void started(long totalBytes) {}

  /** {@code bytes} more were moved (and verified). */
  default void transferred(long bytes) {}

  /** The transfer ended, successfully or not. */
  default void finished() {}
}
