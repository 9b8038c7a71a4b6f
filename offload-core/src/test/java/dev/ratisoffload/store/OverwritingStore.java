package dev.ratisoffload.store;

/**
 * A store that ignores put-if-absent's condition (writes replace what a key holds), as an S3-compatible
 * server that ignores {@code If-None-Match} behaves: for tests of what notices such a store.
 */
public final class OverwritingStore extends ForwardingObjectStore {

  public OverwritingStore(ObjectStore delegate) {
    super(delegate);
  }

  @Override
  public PutOutcome putIfAbsent(String key, Content content) {
    delegate.delete(key);
    return delegate.putIfAbsent(key, content);
  }
}
