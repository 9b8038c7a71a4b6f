package dev.ratisoffload.store;

/**
 * A put-if-absent found the key holding different bytes. Objects are immutable, so this is an
 * integrity error: the stored object was left untouched.
 */
public class ObjectConflictException extends IntegrityException {

  private final String key;

  public ObjectConflictException(String store, String key) {
    super("refused to overwrite " + key + " in " + store
        + ": it already holds different bytes (stored objects are immutable; the stored one was kept)");
    this.key = key;
  }

  public String key() {
    return key;
  }
}
