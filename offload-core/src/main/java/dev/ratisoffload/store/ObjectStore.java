package dev.ratisoffload.store;

import java.io.InputStream;
import java.util.List;
import java.util.Optional;

/**
 * The storage backend: a flat namespace of immutable objects addressed by key.
 *
 * <p>Keys are relative to the store's root (the prefix of its URI), use '/' as separator and only the
 * characters {@link ObjectKeys} allows. Every operation is safe to call from several threads.
 *
 * <p>Errors are unchecked {@link StoreException}s: {@link StoreUnavailableException} when retrying may
 * help, {@link ObjectNotFoundException} for a missing key, {@link ObjectConflictException} when a key
 * already holds different bytes.
 */
public interface ObjectStore extends AutoCloseable {

  /** What {@link #putIfAbsent} found. */
  enum PutOutcome {
    /** The object was written by this call. */
    CREATED,
    /** The key already held exactly these bytes; nothing was written. */
    ALREADY_PRESENT
  }

  /**
   * Writes the object only if the key is absent. If the key exists, its bytes are compared with the
   * content: the same bytes yield {@link PutOutcome#ALREADY_PRESENT}, different bytes throw
   * {@link ObjectConflictException} and leave the stored object untouched. A failed call never leaves a
   * partial object visible at the key.
   */
  PutOutcome putIfAbsent(String key, Content content);

  /** Streams the whole object. The caller closes the stream. */
  InputStream get(String key);

  /** Streams {@code length} bytes starting at {@code offset}; fewer if the object ends first. */
  InputStream get(String key, long offset, long length);

  /** The object's size and modification time, or empty if the key is absent. */
  Optional<ObjectInfo> head(String key);

  /** Every object whose key starts with {@code prefix}, in key order (all pages). */
  default List<ObjectInfo> list(String prefix) {
    return list(prefix, "");
  }

  /**
   * The objects of {@link #list(String)} whose key sorts strictly after {@code startAfter} ("" for all),
   * so a reader that remembers the last key it saw lists only what is new, however long the listing.
   */
  default List<ObjectInfo> list(String prefix, String startAfter) {
    return list(prefix, startAfter, Integer.MAX_VALUE);
  }

  /**
   * The first {@code maxKeys} objects of {@link #list(String, String)}, fetched without reading the
   * rest: a probe of where a long chain ends costs one request. Wrappers override this method only.
   */
  List<ObjectInfo> list(String prefix, String startAfter, int maxKeys);

  /** Refuses a listing bound below one, which would list nothing and look like an empty store. */
  static void requirePositive(int maxKeys) {
    if (maxKeys < 1) {
      throw new IllegalArgumentException("maxKeys " + maxKeys + " is not positive");
    }
  }

  /** Deletes the object; deleting an absent key is not an error. */
  void delete(String key);

  /** A warning when deleting does not free storage (a versioned bucket); empty otherwise. */
  default Optional<String> deletionWarning() {
    return Optional.empty();
  }

  /** Where this store points, for messages: {@code s3://bucket/prefix} or {@code file:///path}. */
  String describe();

  @Override
  void close();
}
