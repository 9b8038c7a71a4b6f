package dev.ratisoffload.format;

import dev.ratisoffload.store.IntegrityException;

/** A manifest object that is not a valid manifest: it names the key and the defect. */
public class CorruptManifestException extends IntegrityException {

  private final String key;

  public CorruptManifestException(String key, String defect) {
    super("manifest " + key + " is corrupt: " + defect);
    this.key = key;
  }

  public String key() {
    return key;
  }
}
