package dev.ratisoffload.primitives;

import java.util.Locale;

/** How byte counts read in tables, progress and messages: {@code 512 B}, {@code 1.5 MiB}. */
public final class ByteSizes {

  private static final String[] UNITS = {"KiB", "MiB", "GiB", "TiB", "PiB"};

  private ByteSizes() {}

  public static String format(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < UNITS.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, UNITS[unit]);
  }
}
