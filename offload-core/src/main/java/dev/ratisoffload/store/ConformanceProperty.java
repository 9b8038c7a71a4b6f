package dev.ratisoffload.store;

/**
 * What a store must do for backups to be immutable and restorable, one property per check of
 * {@link StoreConformance}. Each says whether publishing relies on it (a failure is then FAIL, else WARN)
 * and what a failure means for backups, in words an operator can act on.
 */
public enum ConformanceProperty {
  PUT_IF_ABSENT("put-if-absent", true,
      "a write to an existing key overwrites it: a published generation can be replaced, so backups are not"
          + " immutable"),
  CONCURRENT_PUT_IF_ABSENT("concurrent-writers", true,
      "of writers racing on one key more than one succeeds: put-if-absent holds only when nobody else"
          + " writes, so a concurrent writer (an old leader still publishing, a second cluster sharing the"
          + " prefix) can replace a published object, and backups are not immutable"),
  MULTIPART_PUT_IF_ABSENT("multipart-put-if-absent", false,
      "completing a multipart upload overwrites an existing key: objects above the multipart threshold are"
          + " protected only by the head request the S3 store sends first, not against a concurrent writer"),
  CHECKSUM("checksum", false,
      "a body that does not match the checksum sent with it is stored: bytes damaged on the way are found"
          + " only by offload verify or a scrub, not refused when written"),
  RANGED_READ("ranged-read", true,
      "reading part of an object returns other bytes: restores and verifications read files wrongly"),
  LISTING("listing", true,
      "a key just written is missing from a listing: restores, status and garbage collection do not see"
          + " the newest generations"),
  DELETE("delete", false,
      "objects cannot be deleted: publishing works, but retention, garbage collection and scrub cannot"
          + " delete, and probes and intents stay in the store"),
  ENCRYPTION("server-side-encryption", true,
      "the store refuses or ignores the configured server-side encryption: objects are not stored as"
          + " configured");

  private final String id;
  private final boolean publishingReliesOn;
  private final String failureMeans;

  ConformanceProperty(String id, boolean publishingReliesOn, String failureMeans) {
    this.id = id;
    this.publishingReliesOn = publishingReliesOn;
    this.failureMeans = failureMeans;
  }

  /** The name in output and documentation. */
  public String id() {
    return id;
  }

  /** Whether publishing relies on it: a store without it is not conformant. */
  public boolean publishingReliesOn() {
    return publishingReliesOn;
  }

  /** What it means for backups when the store does not have this property. */
  public String failureMeans() {
    return failureMeans;
  }
}
