package dev.ratisoffload.store;

import java.io.InputStream;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A store that passes every call to another, for decorators (counting, fault injection, probes):
 * override {@link #call} to wrap every request, or a single operation to change it.
 */
public abstract class ForwardingObjectStore implements ObjectStore {

  protected final ObjectStore delegate;

  protected ForwardingObjectStore(ObjectStore delegate) {
    this.delegate = delegate;
  }

  /** Runs one request to the store; {@code key} is the key or the listed prefix. */
  protected <T> T call(String key, Supplier<T> request) {
    return request.get();
  }

  @Override
  public PutOutcome putIfAbsent(String key, Content content) {
    return call(key, () -> delegate.putIfAbsent(key, content));
  }

  @Override
  public InputStream get(String key) {
    return call(key, () -> delegate.get(key));
  }

  @Override
  public InputStream get(String key, long offset, long length) {
    return call(key, () -> delegate.get(key, offset, length));
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    return call(key, () -> delegate.head(key));
  }

  /** Final, so a decorator changes listings in {@link #list(String, String, int)}, which every listing reaches. */
  @Override
  public final List<ObjectInfo> list(String prefix, String startAfter) {
    return list(prefix, startAfter, Integer.MAX_VALUE);
  }

  @Override
  public List<ObjectInfo> list(String prefix, String startAfter, int maxKeys) {
    return call(prefix, () -> delegate.list(prefix, startAfter, maxKeys));
  }

  @Override
  public void delete(String key) {
    call(key, () -> {
      delegate.delete(key);
      return null;
    });
  }

  @Override
  public Optional<String> deletionWarning() {
    return delegate.deletionWarning();
  }

  @Override
  public String describe() {
    return delegate.describe();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
