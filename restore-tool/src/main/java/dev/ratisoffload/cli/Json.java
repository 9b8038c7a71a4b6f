package dev.ratisoffload.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.PrintWriter;

/**
 * {@code --json} output: one JSON document on stdout, times as ISO-8601 instants. Strings often hold what
 * a store says: every character outside printable ASCII is written as a {@code \\uXXXX} escape (JSON
 * escapes the C0 controls itself; non-ASCII and DEL are escaped too), so no escape sequence reaches a
 * terminal.
 */
final class Json {

  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .addModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
      .enable(SerializationFeature.INDENT_OUTPUT)
      .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
      .build();

  static {
    MAPPER.getFactory().setCharacterEscapes(new CharacterEscapes() {
      private final int[] ascii = withDelete(standardAsciiEscapesForJSON());

      @Override
      public int[] getEscapeCodesForAscii() {
        return ascii;
      }

      @Override
      public SerializableString getEscapeSequence(int ch) {
        return null; // only the standard \\uXXXX escapes
      }
    });
  }

  private static int[] withDelete(int[] escapes) {
    escapes[0x7f] = CharacterEscapes.ESCAPE_STANDARD;
    return escapes;
  }

  private Json() {}

  static void print(PrintWriter out, Object value) {
    try {
      out.println(MAPPER.writeValueAsString(value));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
    out.flush();
  }
}
