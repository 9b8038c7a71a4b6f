package dev.ratisoffload.store;

import java.io.IOException;
import java.io.InputStream;
import java.util.function.Supplier;
import software.amazon.awssdk.http.ContentStreamProvider;

/**
 * A request body's streams for the SDK, which may open one to compute a signature or checksum and another
 * to send, and does not close every one it opens: each new stream closes the one before it, and closing
 * the provider closes the last, so a file's handle never outlives its request.
 */
final class ClosingStreamProvider implements ContentStreamProvider, AutoCloseable {

  private final Supplier<InputStream> opener;
  private InputStream current;

  ClosingStreamProvider(Supplier<InputStream> opener) {
    this.opener = opener;
  }

  @Override
  public synchronized InputStream newStream() {
    closeCurrent();
    current = opener.get();
    return current;
  }

  @Override
  public synchronized void close() {
    closeCurrent();
  }

  private void closeCurrent() {
    if (current != null) {
      try {
        current.close();
      } catch (IOException ignored) {
        // a stream that was only read from: nothing written is at stake
      }
      current = null;
    }
  }
}
