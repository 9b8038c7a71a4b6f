package dev.ratisoffload.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** How sizes, times and durations read in tables and messages. */
final class Formats {

  private Formats() {}

  /** An instant to the second, ISO-8601. */
  static String time(Instant instant) {
    return instant.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /**
   * A duration in the units Ratis writes ({@code ms}, {@code s}, {@code min}, {@code h}, {@code d}),
   * the two largest that apply: {@code 26h5min}, {@code 3min12s}, {@code 450ms}, {@code 9d4h}.
   */
  static String duration(Duration duration) {
    long millis = Math.max(0, duration.toMillis());
    if (millis < 1000) {
      return millis + "ms";
    }
    long seconds = millis / 1000;
    long hours = seconds / 3600;
    long minutes = seconds % 3600 / 60;
    long secs = seconds % 60;
    if (hours >= 48) {
      return hours / 24 + "d" + (hours % 24 > 0 ? hours % 24 + "h" : "");
    }
    if (hours > 0) {
      return hours + "h" + (minutes > 0 ? minutes + "min" : "");
    }
    if (minutes > 0) {
      return minutes + "min" + (secs > 0 ? secs + "s" : "");
    }
    return secs + "s";
  }
}
