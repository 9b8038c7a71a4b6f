package dev.ratisoffload.kafka.backup;

import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.format.SegmentHeader;
import dev.ratisoffload.primitives.ByteSizes;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Shows a backup's progress: on a terminal, a line per topic and one per partition (records, bytes, lag,
 * segments) redrawn in place; elsewhere (a log file, a pipe), one summary line per topic at most every 30
 * seconds.
 */
public final class TerminalProgress implements BackupListener {

  private static final long QUIET_NANOS = Duration.ofSeconds(30).toNanos();
  private final PrintWriter out;
  private final boolean interactive;
  private int linesDrawn;
  /** Each topic's newest progress, drawn together. */
  private final Map<String, BackupProgress> latest = new TreeMap<>();
  private final Map<String, Long> lastLine = new HashMap<>();

  public TerminalProgress(PrintWriter out, boolean interactive) {
    this.out = out;
    this.interactive = interactive;
  }

  @Override
  public void progress(BackupProgress p) {
    if (interactive) {
      redraw(p);
    } else {
      Long last = lastLine.get(p.topic());
      if (last == null || System.nanoTime() - last >= QUIET_NANOS) {
        out.println(summaryLine(p));
        out.flush();
        lastLine.put(p.topic(), System.nanoTime());
      }
    }
  }

  @Override
  public void retrying(String problem, Duration wait) {
    linesDrawn = 0; // the table is drawn anew below the message
    out.printf(Locale.ROOT, "%s; trying again in %d s%n", problem, wait.toSeconds());
    out.flush();
  }

  @Override
  public void segmentStored(SegmentKey key, SegmentHeader header) {
    // shown through the counts of the next progress line
  }

  private void redraw(BackupProgress progress) {
    latest.put(progress.topic(), progress);
    StringBuilder b = new StringBuilder();
    if (linesDrawn > 0) {
      b.append("\033[").append(linesDrawn).append('F');
    }
    int lines = 0;
    for (BackupProgress p : latest.values()) {
      b.append(summaryLine(p)).append("\033[K\n");
      for (BackupProgress.PartitionProgress part : p.partitions()) {
        b.append(String.format(Locale.ROOT, "  %s/%-5d records %,14d  %10s  lag %12s  segments %,7d  next offset %,d",
            p.topic(), part.partition(), part.recordsRead(), ByteSizes.format(part.bytesRead()), lag(part.lag()),
            part.segmentsStored(), part.position())).append("\033[K\n");
      }
      lines += 1 + p.partitions().size();
    }
    out.print(b);
    out.flush();
    linesDrawn = lines;
  }

  static String summaryLine(BackupProgress p) {
    return String.format(Locale.ROOT, "%s: %,d records, %s read in %ds, lag %s, %d partitions", p.topic(),
        p.recordsRead(), ByteSizes.format(p.bytesRead()), p.elapsed().toSeconds(), lag(p.lag()), p.partitions().size());
  }

  private static String lag(long lag) {
    return lag < 0 ? "?" : String.format(Locale.ROOT, "%,d", lag);
  }
}
