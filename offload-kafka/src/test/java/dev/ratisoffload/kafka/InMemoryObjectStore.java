package dev.ratisoffload.kafka;

import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.ObjectConflictException;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectKeys;
import dev.ratisoffload.store.ObjectNotFoundException;
import dev.ratisoffload.store.ObjectStore;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/** A store in memory, for fast property tests; behaviours that touch real stores are tested on them too. */
public final class InMemoryObjectStore implements ObjectStore {

  private final ConcurrentSkipListMap<String, byte[]> objects = new ConcurrentSkipListMap<>();

  @Override
  public PutOutcome putIfAbsent(String key, Content content) {
    ObjectKeys.requireValid(key);
    byte[] bytes = content.toByteArray().clone();
    byte[] existing = objects.putIfAbsent(key, bytes);
    if (existing == null) {
      return PutOutcome.CREATED;
    }
    if (Arrays.equals(existing, bytes)) {
      return PutOutcome.ALREADY_PRESENT;
    }
    throw new ObjectConflictException(describe(), key);
  }

  /** Replaces an object's bytes, as damage or tampering would; tests only. */
  public void overwrite(String key, byte[] bytes) {
    objects.put(key, bytes.clone());
  }

  public byte[] bytes(String key) {
    byte[] b = objects.get(key);
    if (b == null) {
      throw new ObjectNotFoundException(describe(), key);
    }
    return b.clone();
  }

  @Override
  public InputStream get(String key) {
    return new ByteArrayInputStream(bytes(key));
  }

  @Override
  public InputStream get(String key, long offset, long length) {
    byte[] b = bytes(key);
    int from = (int) Math.min(offset, b.length);
    int to = (int) Math.min(b.length, from + length);
    return new ByteArrayInputStream(Arrays.copyOfRange(b, from, to));
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    byte[] b = objects.get(key);
    return b == null ? Optional.empty() : Optional.of(new ObjectInfo(key, b.length, Instant.EPOCH));
  }

  @Override
  public List<ObjectInfo> list(String prefix) {
    return objects.tailMap(prefix).entrySet().stream()
        .takeWhile(e -> e.getKey().startsWith(prefix))
        .map(e -> new ObjectInfo(e.getKey(), e.getValue().length, Instant.EPOCH))
        .toList();
  }

  @Override
  public void delete(String key) {
    objects.remove(key);
  }

  public List<String> keys() {
    return List.copyOf(objects.keySet());
  }

  @Override
  public String describe() {
    return "memory:";
  }

  @Override
  public void close() {}
}
