package dev.ratisoffload.primitives;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The self-verifying document format every manifest uses: one header line, {@code <magic> <version>
 * sha256=<hex>}, then a strict JSON body. The hash covers the body's exact bytes, so any change to the
 * object, a truncation or an extension is detected before the JSON is even parsed.
 */
public final class HashedJson {

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
  private static final int MAX_HEADER = 200;
  private static final String HASH = "sha256=";

  /** What is wrong with an object; the caller wraps it in its own integrity error with the key. */
  public static final class Defect extends Exception {
    public Defect(String problem) {
      super(problem, null, false, false);
    }
  }

  private HashedJson() {}

  public static byte[] encode(String magic, int version, Object document) {
    byte[] body;
    try {
      body = JSON.writeValueAsBytes(document);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise " + magic, e);
    }
    byte[] header = (magic + " " + version + " " + HASH + Hashes.sha256Hex(body) + "\n")
        .getBytes(StandardCharsets.US_ASCII);
    byte[] object = Arrays.copyOf(header, header.length + body.length);
    System.arraycopy(body, 0, object, header.length, body.length);
    return object;
  }

  /**
   * A body whose header and hash were checked, not yet parsed: the version its header names, and the
   * object's bytes from {@code offset} on.
   */
  public record Body(int version, byte[] object, int offset) {

    /** Parses the body strictly into {@code type}. */
    public <T> T bind(Class<T> type) throws Defect {
      T document;
      try {
        document = JSON.readValue(object, offset, object.length - offset, type);
      } catch (java.io.IOException | RuntimeException e) {
        throw new Defect("unreadable JSON: " + firstLine(e.getMessage()));
      }
      if (document == null) {
        throw new Defect("empty body");
      }
      return document;
    }

    /** Parses the body strictly into a tree, for a reader that upgrades an older version first. */
    public JsonNode tree() throws Defect {
      JsonNode json;
      try {
        json = JSON.readTree(new ByteArrayInputStream(object, offset, object.length - offset));
      } catch (java.io.IOException | RuntimeException e) {
        throw new Defect("unreadable JSON: " + firstLine(e.getMessage()));
      }
      if (json == null || json.isMissingNode() || json.isNull()) {
        throw new Defect("empty body");
      }
      return json;
    }
  }

  /** Checks the header and the body's hash, then parses the body strictly. */
  public static <T> T decode(byte[] object, String magic, int version, int maxBytes, Class<T> type)
      throws Defect {
    return decodeBody(object, magic, version, version, maxBytes).bind(type);
  }

  /** Checks the header (any version from {@code oldest} to {@code newest}) and the body's hash. */
  public static Body decodeBody(byte[] object, String magic, int oldest, int newest, int maxBytes)
      throws Defect {
    if (object.length > maxBytes) {
      throw new Defect("larger than " + maxBytes + " bytes");
    }
    int newline = -1;
    for (int i = 0; i < Math.min(object.length, MAX_HEADER) && newline < 0; i++) {
      newline = object[i] == '\n' ? i : -1;
    }
    if (newline < 0) {
      throw new Defect("no header line");
    }
    String header = new String(object, 0, newline, StandardCharsets.US_ASCII);
    String[] parts = header.split(" ", -1);
    if (parts.length != 3 || !parts[0].equals(magic) || !parts[2].startsWith(HASH)) {
      throw new Defect("malformed header '" + Printable.excerpt(header) + "'");
    }
    int version = -1;
    for (int v = oldest; v <= newest; v++) {
      version = parts[1].equals(Integer.toString(v)) ? v : version;
    }
    if (version < 0) {
      throw new Defect("format version '" + Printable.excerpt(parts[1]) + "' is not supported by this version ("
          + (oldest == newest ? Integer.toString(newest) : oldest + " to " + newest) + ")");
    }
    String declared = parts[2].substring(HASH.length());
    String actual = Hashes.sha256Hex(object, newline + 1, object.length - newline - 1);
    if (!declared.equals(actual)) {
      throw new Defect("body hash is " + actual + " but the header says " + Printable.excerpt(declared)
          + " (changed, truncated or extended)");
    }
    return new Body(version, object, newline + 1);
  }

  /** Binds an upgraded tree to its type as strictly as a body is parsed (unknown fields refused). */
  public static <T> T bind(JsonNode json, Class<T> type) throws Defect {
    try {
      return JSON.treeToValue(json, type);
    } catch (java.io.IOException | RuntimeException e) {
      throw new Defect("unreadable JSON: " + firstLine(e.getMessage()));
    }
  }

  private static String firstLine(String message) {
    return message == null ? "" : Printable.excerpt(message.split("\n", 2)[0]);
  }
}
