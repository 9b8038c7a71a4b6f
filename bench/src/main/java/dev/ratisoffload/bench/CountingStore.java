package dev.ratisoffload.bench;

import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a store sees: every request counted, and the most writes in flight at once, in total and as
 * distinct groups (the segment after {@code chunks/<cluster>/} or {@code manifests/<cluster>/}).
 */
final class CountingStore implements ObjectStore {

  private final ObjectStore delegate;
  final AtomicLong requests = new AtomicLong();
  private final AtomicInteger writesInFlight = new AtomicInteger();
  final AtomicInteger maxWritesInFlight = new AtomicInteger();
  private final Map<String, AtomicInteger> groupsWriting = new ConcurrentHashMap<>();
  final AtomicInteger maxGroupsWriting = new AtomicInteger();

  CountingStore(ObjectStore delegate) {
    this.delegate = delegate;
  }

  @Override
  public PutOutcome putIfAbsent(String key, Content content) {
    requests.incrementAndGet();
    String group = groupOf(key);
    maxWritesInFlight.accumulateAndGet(writesInFlight.incrementAndGet(), Math::max);
    synchronized (groupsWriting) {
      groupsWriting.computeIfAbsent(group, g -> new AtomicInteger()).incrementAndGet();
      maxGroupsWriting.accumulateAndGet(groupsWriting.size(), Math::max);
    }
    try {
      return delegate.putIfAbsent(key, content);
    } finally {
      writesInFlight.decrementAndGet();
      synchronized (groupsWriting) {
        if (groupsWriting.get(group).decrementAndGet() == 0) {
          groupsWriting.remove(group);
        }
      }
    }
  }

  private static String groupOf(String key) {
    String[] parts = key.split("/");
    return parts.length > 3 ? parts[3] : key; // ratis/<tree>/<cluster>/<group>/...
  }

  @Override
  public InputStream get(String key) {
    requests.incrementAndGet();
    return delegate.get(key);
  }

  @Override
  public InputStream get(String key, long offset, long length) {
    requests.incrementAndGet();
    return delegate.get(key, offset, length);
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    requests.incrementAndGet();
    return delegate.head(key);
  }

  @Override
  public List<ObjectInfo> list(String prefix) {
    requests.incrementAndGet();
    return delegate.list(prefix);
  }

  @Override
  public void delete(String key) {
    requests.incrementAndGet();
    delegate.delete(key);
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
