package dev.ratisoffload.store;

/** Opens the store a URI names. */
public final class Stores {

  private Stores() {}

  /** A directory store for {@code file:} URIs, an S3 store (with these settings) for {@code s3:}. */
  public static ObjectStore open(StoreUri uri, S3Settings s3) {
    return "file".equals(uri.scheme()) ? new DirectoryObjectStore(uri.directory()) : new S3ObjectStore(uri, s3);
  }
}
