package dev.ratisoffload.format;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes and reads manifest objects. An object is one header line, {@code ratis-offload-manifest 1
 * sha256=<hex>}, then the JSON body; the hash covers the body's exact bytes, so any change to the
 * object, a truncation or an extension is detected before the JSON is even parsed.
 */
public final class ManifestCodec {

  static final String MAGIC = "ratis-offload-manifest";
  /** Manifests are small (about 100 bytes per chunk); refuse to read absurd ones. */
  public static final int MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

  private static final ObjectMapper JSON = JsonMapper.builder()
      .addModule(new JavaTimeModule())
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
      .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .enable(SerializationFeature.INDENT_OUTPUT)
      .build();

  private ManifestCodec() {}

  /** The object bytes for a manifest, after checking that it is valid. */
  public static byte[] encode(Manifest manifest) {
    ManifestRules.check(manifest);
    byte[] body;
    try {
      body = JSON.writeValueAsBytes(manifest);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise manifest", e);
    }
    byte[] header = (MAGIC + " " + Manifest.FORMAT_VERSION + " sha256=" + Hashes.sha256Hex(body) + "\n")
        .getBytes(StandardCharsets.US_ASCII);
    byte[] object = Arrays.copyOf(header, header.length + body.length);
    System.arraycopy(body, 0, object, header.length, body.length);
    return object;
  }

  /**
   * Parses and checks a manifest object read from {@code key}.
   *
   * @throws CorruptManifestException naming the key and what is wrong
   */
  public static Manifest decode(byte[] object, String key) {
    if (object.length > MAX_MANIFEST_BYTES) {
      throw new CorruptManifestException(key, "larger than " + MAX_MANIFEST_BYTES + " bytes");
    }
    int newline = indexOf(object, (byte) '\n');
    if (newline < 0 || newline > 200) {
      throw new CorruptManifestException(key, "no manifest header line");
    }
    String header = new String(object, 0, newline, StandardCharsets.US_ASCII);
    String[] parts = header.split(" ", -1);
    if (parts.length != 3 || !parts[0].equals(MAGIC) || !parts[2].startsWith("sha256=")) {
      throw new CorruptManifestException(key, "malformed header '" + printable(header) + "'");
    }
    if (!parts[1].equals(Integer.toString(Manifest.FORMAT_VERSION))) {
      throw new CorruptManifestException(key, "format version '" + printable(parts[1])
          + "' is not supported by this version (" + Manifest.FORMAT_VERSION + ")");
    }
    String declared = parts[2].substring("sha256=".length());
    String actual = Hashes.sha256Hex(object, newline + 1, object.length - newline - 1);
    if (!declared.equals(actual)) {
      throw new CorruptManifestException(key, "body hash is " + actual + " but the header says "
          + printable(declared) + " (changed, truncated or extended)");
    }
    Manifest manifest;
    try {
      manifest = JSON.readValue(object, newline + 1, object.length - newline - 1, Manifest.class);
    } catch (java.io.IOException | RuntimeException e) {
      throw new CorruptManifestException(key, "unreadable JSON: " + firstLine(e.getMessage()));
    }
    if (manifest == null) {
      throw new CorruptManifestException(key, "empty body");
    }
    try {
      ManifestRules.check(manifest);
    } catch (IllegalArgumentException e) {
      throw new CorruptManifestException(key, e.getMessage());
    }
    return manifest;
  }

  private static int indexOf(byte[] bytes, byte b) {
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  private static String printable(String text) {
    String cut = text.length() > 80 ? text.substring(0, 80) + "..." : text;
    return cut.replaceAll("[^\\x20-\\x7e]", "?");
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int newline = message.indexOf('\n');
    return printable(newline < 0 ? message : message.substring(0, newline));
  }
}
