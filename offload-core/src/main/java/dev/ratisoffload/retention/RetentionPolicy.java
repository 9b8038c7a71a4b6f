package dev.ratisoffload.retention;

import dev.ratisoffload.activity.GroupActivity;

import java.time.Duration;

/**
 * Which generations of a group to keep. A generation is kept if any rule keeps it; whatever the
 * rules, the newest generation is always kept, so a group never drops below one generation and nothing
 * is expired before a newer generation exists.
 *
 * @param keepLast the newest N generations
 * @param keepWithin every generation created within this duration before the newest one (zero: off)
 * @param keepHourly the newest generation of each of the N most recent hours that have one
 * @param keepDaily likewise per day (UTC)
 * @param keepWeekly likewise per ISO week (UTC)
 * @param keepMonthly likewise per month (UTC)
 * @param chunkGrace how long a publish or a garbage collection sweep may take before the other side treats
 *     its activity object as abandoned (see {@link GroupActivity}); at least {@link #MIN_CHUNK_GRACE}
 */
public record RetentionPolicy(int keepLast, Duration keepWithin, int keepHourly, int keepDaily,
    int keepWeekly, int keepMonthly, Duration chunkGrace) {

  public static final Duration DEFAULT_CHUNK_GRACE = GroupActivity.DEFAULT_CHUNK_GRACE;
  /** The shortest safe chunk grace ({@link GroupActivity#MIN_CHUNK_GRACE}). */
  public static final Duration MIN_CHUNK_GRACE = GroupActivity.MIN_CHUNK_GRACE;

  public RetentionPolicy {
    if (keepLast < 0 || keepHourly < 0 || keepDaily < 0 || keepWeekly < 0 || keepMonthly < 0) {
      throw new IllegalArgumentException("retention counts may not be negative");
    }
    if (keepWithin.isNegative()) {
      throw new IllegalArgumentException("retention durations may not be negative");
    }
    requireSafeChunkGrace("chunk-grace", chunkGrace.toString(), chunkGrace);
  }

  /** The one check of a chunk grace, for the plugin's key and the command line's flag alike. */
  public static Duration requireSafeChunkGrace(String name, String text, Duration grace) {
    return GroupActivity.requireSafeChunkGrace(name, text, grace);
  }

  /** Keeps everything: the default when no rule is configured. */
  public static RetentionPolicy keepAll() {
    return new RetentionPolicy(0, Duration.ZERO, 0, 0, 0, 0, DEFAULT_CHUNK_GRACE);
  }

  /** Whether any rule is set; without one, garbage collection does nothing at all. */
  public boolean isEnabled() {
    return keepLast > 0 || !keepWithin.isZero() || keepHourly > 0 || keepDaily > 0 || keepWeekly > 0
        || keepMonthly > 0;
  }

  @Override
  public String toString() {
    return "keep-last " + keepLast + ", keep-within " + keepWithin + ", hourly " + keepHourly + ", daily "
        + keepDaily + ", weekly " + keepWeekly + ", monthly " + keepMonthly + ", chunk grace " + chunkGrace;
  }
}
