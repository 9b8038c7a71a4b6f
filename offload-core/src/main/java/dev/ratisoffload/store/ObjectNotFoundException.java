package dev.ratisoffload.store;

/** The key holds no object. */
public class ObjectNotFoundException extends StoreException {

  private final String key;

  public ObjectNotFoundException(String store, String key) {
    super("object " + key + " not found in " + store);
    this.key = key;
  }

  public String key() {
    return key;
  }
}
