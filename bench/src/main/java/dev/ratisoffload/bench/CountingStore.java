package dev.ratisoffload.bench;

import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.ForwardingObjectStore;
import dev.ratisoffload.store.ObjectStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * What a store sees: every request counted, and the most writes in flight at once, in total and as
 * distinct groups (the segment after {@code chunks/<cluster>/} or {@code manifests/<cluster>/}).
 */
final class CountingStore extends ForwardingObjectStore {

  final AtomicLong requests = new AtomicLong();
  private final AtomicInteger writesInFlight = new AtomicInteger();
  final AtomicInteger maxWritesInFlight = new AtomicInteger();
  private final Map<String, AtomicInteger> groupsWriting = new ConcurrentHashMap<>();
  final AtomicInteger maxGroupsWriting = new AtomicInteger();

  CountingStore(ObjectStore delegate) {
    super(delegate);
  }

  @Override
  protected <T> T call(String key, Supplier<T> request) {
    requests.incrementAndGet();
    return request.get();
  }

  @Override
  public PutOutcome putIfAbsent(String key, Content content) {
    String group = groupOf(key);
    maxWritesInFlight.accumulateAndGet(writesInFlight.incrementAndGet(), Math::max);
    synchronized (groupsWriting) {
      groupsWriting.computeIfAbsent(group, g -> new AtomicInteger()).incrementAndGet();
      maxGroupsWriting.accumulateAndGet(groupsWriting.size(), Math::max);
    }
    try {
      return super.putIfAbsent(key, content);
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
}
