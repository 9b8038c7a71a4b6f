package dev.ratisoffload.plugin;

import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/** Strict parsing of property values: an invalid value is an error naming the key and the value. */
final class ConfigValues {

  private ConfigValues() {}

  static IllegalArgumentException invalid(String key, String value, String expected) {
    return new IllegalArgumentException("invalid " + key + " = '" + value + "': " + expected);
  }

  static String optional(RaftProperties p, String key) {
    String value = p.getTrimmed(key);
    return value == null || value.isEmpty() ? null : value;
  }

  static String required(RaftProperties p, String key) {
    String value = optional(p, key);
    if (value == null) {
      throw new IllegalArgumentException("missing " + key + ": it is required");
    }
    return value;
  }

  static boolean bool(RaftProperties p, String key, boolean defaultValue) {
    String value = optional(p, key);
    if (value == null) {
      return defaultValue;
    }
    if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(value);
    }
    throw invalid(key, value, "expected true or false");
  }

  static int positiveInt(RaftProperties p, String key, int defaultValue) {
    return intAtLeast(p, key, defaultValue, 1, "expected a positive whole number");
  }

  static int nonNegativeInt(RaftProperties p, String key) {
    return intAtLeast(p, key, 0, 0, "expected 0 (off) or a positive whole number");
  }

  private static int intAtLeast(RaftProperties p, String key, int defaultValue, int min, String expected) {
    String value = optional(p, key);
    if (value == null) {
      return defaultValue;
    }
    try {
      int parsed = Integer.parseInt(value);
      if (parsed >= min) {
        return parsed;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw invalid(key, value, expected);
  }

  static long size(RaftProperties p, String key, SizeInBytes defaultValue) {
    String value = optional(p, key);
    if (value == null) {
      return defaultValue.getSize();
    }
    try {
      return SizeInBytes.valueOf(value).getSize();
    } catch (RuntimeException e) {
      throw invalid(key, value, "expected a size such as 512KB or 4MB");
    }
  }

  /** A duration as Ratis writes them: {@code 100ms}, {@code 30s}, {@code 15min}, {@code 24h}. */
  static TimeDuration duration(RaftProperties p, String key, TimeDuration defaultValue) {
    String value = optional(p, key);
    if (value == null) {
      return defaultValue;
    }
    try {
      return TimeDuration.valueOf(value, java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      throw invalid(key, value, "expected a duration such as 100ms, 30s, 15min or 24h");
    }
  }

  static TimeDuration nonNegativeDuration(RaftProperties p, String key, TimeDuration defaultValue) {
    TimeDuration d = duration(p, key, defaultValue);
    if (d.isNegative()) {
      throw invalid(key, p.get(key), "expected 0 or a positive duration");
    }
    return d;
  }

  /** Bytes per second, such as {@code 64MB}; 0 means no limit. */
  static long bandwidth(RaftProperties p, String key, org.apache.ratis.util.SizeInBytes defaultValue) {
    String value = optional(p, key);
    try {
      long bytesPerSecond = size(p, key, defaultValue);
      if (bytesPerSecond >= 0) {
        return bytesPerSecond;
      }
    } catch (IllegalArgumentException e) {
      // reported below, with what is expected here
    }
    throw invalid(key, value, "expected 0 (no limit) or bytes per second such as " + defaultValue.getInput());
  }
}
