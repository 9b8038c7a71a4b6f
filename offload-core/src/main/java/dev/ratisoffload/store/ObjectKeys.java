package dev.ratisoffload.store;

import java.util.regex.Pattern;

/**
 * The key syntax every store accepts: '/'-separated segments of letters, digits, '.', '_', '-' and '=';
 * no empty segment, no "." or ".." segment, no leading '.' (reserved for a store's temporary files).
 */
public final class ObjectKeys {

  private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9_=-][A-Za-z0-9._=-]{0,254}");

  private ObjectKeys() {}

  /** Returns the key, or throws {@link IllegalArgumentException} naming what is wrong with it. */
  public static String requireValid(String key) {
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("object key is empty");
    }
    for (String segment : key.split("/", -1)) {
      if (!SEGMENT.matcher(segment).matches()) {
        throw new IllegalArgumentException("invalid object key '" + key + "': segment '" + segment
            + "' must be 1-255 of [A-Za-z0-9._=-] and not start with '.'");
      }
    }
    return key;
  }

  /** A prefix is a key or a key followed by '/', or empty for the whole store. */
  public static String requireValidPrefix(String prefix) {
    if (prefix.isEmpty()) {
      return prefix;
    }
    requireValid(prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix);
    return prefix;
  }
}
