package dev.ratisoffload.store;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/** A store in memory with a settable clock, for fast unit and property tests only. */
public final class InMemoryObjectStore implements ObjectStore {

  private record Entry(byte[] bytes, Instant lastModified) {}

  private final Map<String, Entry> objects = new ConcurrentSkipListMap<>();
  private final Clock clock;

  public InMemoryObjectStore(Clock clock) {
    this.clock = clock;
  }

  /** A store whose objects are all last modified at the epoch. */
  public InMemoryObjectStore() {
    this(Clock.fixed(Instant.EPOCH, ZoneOffset.UTC));
  }

  /** A copy of an object's bytes. */
  public byte[] bytes(String key) {
    Entry e = objects.get(key);
    if (e == null) {
      throw new ObjectNotFoundException(describe(), key);
    }
    return e.bytes.clone();
  }

  @Override
  public synchronized PutOutcome putIfAbsent(String key, Content content) {
    ObjectKeys.requireValid(key);
    byte[] bytes = content.toByteArray();
    Entry existing = objects.get(key);
    if (existing != null) {
      if (Arrays.equals(existing.bytes, bytes)) {
        return PutOutcome.ALREADY_PRESENT;
      }
      throw new ObjectConflictException(describe(), key);
    }
    objects.put(key, new Entry(bytes.clone(), clock.instant()));
    return PutOutcome.CREATED;
  }

  /** Replaces an object regardless of immutability: tests use it to corrupt stored data. */
  public void overwrite(String key, byte[] bytes) {
    objects.put(key, new Entry(bytes.clone(), clock.instant()));
  }

  @Override
  public InputStream get(String key) {
    Entry e = objects.get(key);
    if (e == null) {
      throw new ObjectNotFoundException(describe(), key);
    }
    return new ByteArrayInputStream(e.bytes);
  }

  @Override
  public InputStream get(String key, long offset, long length) {
    Entry e = objects.get(key);
    if (e == null) {
      throw new ObjectNotFoundException(describe(), key);
    }
    int from = (int) Math.min(offset, e.bytes.length);
    int to = (int) Math.min(e.bytes.length, offset + length);
    return new ByteArrayInputStream(e.bytes, from, to - from);
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    Entry e = objects.get(key);
    return e == null ? Optional.empty() : Optional.of(new ObjectInfo(key, e.bytes.length, e.lastModified));
  }

  @Override
  public List<ObjectInfo> list(String prefix, String startAfter, int maxKeys) {
    List<ObjectInfo> result = new ArrayList<>();
    objects.forEach((k, e) -> {
      if (k.startsWith(prefix) && k.compareTo(startAfter) > 0 && result.size() < maxKeys) {
        result.add(new ObjectInfo(k, e.bytes.length, e.lastModified));
      }
    });
    return result;
  }

  @Override
  public void delete(String key) {
    objects.remove(key);
  }

  @Override
  public String describe() {
    return "memory:";
  }

  @Override
  public void close() {}
}
