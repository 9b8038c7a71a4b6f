package dev.ratisoffload.format;

/**
 * Writes and reads manifest objects in the {@link HashedJson} format, with the magic
 * {@code ratis-offload-manifest}, checking {@link ManifestRules} both ways.
 */
public final class ManifestCodec {

  static final String MAGIC = "ratis-offload-manifest";
  /** Manifests are small (about 100 bytes per chunk); refuse to read absurd ones. */
  public static final int MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

  private ManifestCodec() {}

  /** The object bytes for a manifest, after checking that it is valid. */
  public static byte[] encode(Manifest manifest) {
    ManifestRules.check(manifest);
    return HashedJson.encode(MAGIC, Manifest.FORMAT_VERSION, manifest);
  }

  /**
   * Parses and checks a manifest object read from {@code key}.
   *
   * @throws CorruptManifestException naming the key and what is wrong
   */
  public static Manifest decode(byte[] object, String key) {
    Manifest manifest;
    try {
      manifest = HashedJson.decode(object, MAGIC, Manifest.FORMAT_VERSION, MAX_MANIFEST_BYTES, Manifest.class);
    } catch (HashedJson.Defect defect) {
      throw new CorruptManifestException(key, defect.getMessage());
    }
    try {
      ManifestRules.check(manifest);
    } catch (IllegalArgumentException e) {
      throw new CorruptManifestException(key, e.getMessage());
    }
    return manifest;
  }
}
