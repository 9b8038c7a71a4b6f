package dev.ratisoffload.format;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ratisoffload.primitives.HashedJson;
import dev.ratisoffload.primitives.Printable;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Writes and reads manifest objects in the {@link HashedJson} format, with the magic
 * {@code ratis-offload-manifest}, checking {@link ManifestRules} both ways. Writes format 2; reads format 2
 * and format 1, whose peers it upgrades to voting peers with Ratis's defaults.
 */
public final class ManifestCodec {

  static final String MAGIC = "ratis-offload-manifest";
  /** Manifests are small (about 100 bytes per chunk); refuse to read absurd ones. */
  public static final int MAX_MANIFEST_BYTES = 64 * 1024 * 1024;
  private static final Set<String> FORMAT_1_PEER_FIELDS = Set.of("id", "address");

  private ManifestCodec() {}

  /** The object bytes for a manifest, after checking that it is valid; only the current format is written. */
  public static byte[] encode(Manifest manifest) {
    ManifestRules.check(manifest);
    if (manifest.format() != Manifest.FORMAT_VERSION) {
      throw new IllegalArgumentException("invalid format: " + manifest.format() + " (this version writes "
          + Manifest.FORMAT_VERSION + " only)");
    }
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
      HashedJson.Body body = HashedJson.decodeBody(object, MAGIC, Manifest.FORMAT_1, Manifest.FORMAT_VERSION,
          MAX_MANIFEST_BYTES);
      manifest = body.version() == Manifest.FORMAT_1
          ? HashedJson.bind(upgradeFormat1(body.tree()), Manifest.class) : body.bind(Manifest.class);
      if (manifest.format() != body.version()) {
        throw new HashedJson.Defect("format " + manifest.format() + " in a format " + body.version()
            + " object");
      }
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

  /**
   * A format 1 body as format 2 says the same: each peer, which had only an id and an address, becomes a
   * voting peer with Ratis's defaults. A field format 1 did not have is refused as format 2's reader
   * refuses unknown fields.
   */
  private static JsonNode upgradeFormat1(JsonNode body) throws HashedJson.Defect {
    JsonNode peers = body.path("peers");
    for (JsonNode peer : peers.isArray() ? peers : List.<JsonNode>of()) {
      if (!(peer instanceof ObjectNode fields)) {
        continue; // binding reports it
      }
      for (Iterator<String> names = fields.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!FORMAT_1_PEER_FIELDS.contains(name)) {
          throw new HashedJson.Defect("unknown field '" + Printable.excerpt(name)
              + "' in a peer of a format 1 manifest");
        }
      }
      fields.putNull("clientAddress").putNull("adminAddress").putNull("dataStreamAddress")
          .put("priority", 0).put("role", Manifest.Role.FOLLOWER.name());
    }
    return body;
  }
}
