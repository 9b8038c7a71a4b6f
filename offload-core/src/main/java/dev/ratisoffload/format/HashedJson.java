package dev.ratisoffload.format;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.ratisoffload.text.Printable;
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
    Defect(String problem) {
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

  /** Checks the header and the body's hash, then parses the body strictly. */
  public static <T> T decode(byte[] object, String magic, int version, int maxBytes, Class<T> type)
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
      throw new Defect("malformed header '" + printable(header) + "'");
    }
    if (!parts[1].equals(Integer.toString(version))) {
      throw new Defect("format version '" + printable(parts[1]) + "' is not supported by this version ("
          + version + ")");
    }
    String declared = parts[2].substring(HASH.length());
    String actual = Hashes.sha256Hex(object, newline + 1, object.length - newline - 1);
    if (!declared.equals(actual)) {
      throw new Defect("body hash is " + actual + " but the header says " + printable(declared)
          + " (changed, truncated or extended)");
    }
    T document;
    try {
      document = JSON.readValue(object, newline + 1, object.length - newline - 1, type);
    } catch (java.io.IOException | RuntimeException e) {
      throw new Defect("unreadable JSON: " + firstLine(e.getMessage()));
    }
    if (document == null) {
      throw new Defect("empty body");
    }
    return document;
  }

  /** At most 80 characters of text, made safe to print ({@link Printable#excerpt}). */
  public static String printable(String text) {
    return Printable.excerpt(text);
  }

  private static String firstLine(String message) {
    return message == null ? "" : printable(message.split("\n", 2)[0]);
  }
}
