package dev.ratisoffload.primitives;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Makes text from a store (keys, manifest fields, names) safe to print: a store anyone can write to
 * must not be able to send control characters or escape sequences to an operator's terminal. Every
 * character outside printable ASCII becomes {@code \\uXXXX}; printable ASCII is kept as it is, so
 * escaping twice changes nothing and messages that already hold escaped values can be escaped whole.
 */
public final class Printable {

  private static final int EXCERPT = 80;

  private Printable() {}

  /** The text with every character outside {@code ' '..'~'} written as {@code \\uXXXX}; "null" for null. */
  public static String of(String text) {
    if (text == null) {
      return "null";
    }
    StringBuilder shown = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean printable = c >= 0x20 && c <= 0x7e;
      if (!printable && shown == null) {
        shown = new StringBuilder(text.length() + 16).append(text, 0, i);
      }
      if (shown != null) {
        if (printable) {
          shown.append(c);
        } else {
          shown.append(String.format("\\u%04x", (int) c));
        }
      }
    }
    return shown == null ? text : shown.toString();
  }

  /** {@link #of} of each line of a report, keeping its '\n' line breaks (and nothing else). */
  public static String keepingLines(String text) {
    return text == null ? of(null) : Arrays.stream(text.split("\n", -1)).map(Printable::of)
        .collect(Collectors.joining("\n"));
  }

  /** {@link #of} of at most the first 80 characters, with "..." when cut: a value inside a message. */
  public static String excerpt(String text) {
    if (text != null && text.length() > EXCERPT) {
      return of(text.substring(0, EXCERPT)) + "...";
    }
    return of(text);
  }
}
