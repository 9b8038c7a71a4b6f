package dev.ratisoffload.kafka.backup;

import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.format.SegmentHeader;
import dev.ratisoffload.primitives.ByteSizes;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;

/**
 * Shows a backup's progress: on a terminal, one line per partition (records, bytes, lag, segments)
 * redrawn in place; elsewhere (a log file, a pipe), one summary line at most every 30 seconds.
 */
public final class TerminalProgress implements BackupListener {

  private static final long QUIET_NANOS = Duration.ofSeconds(30).toNanos();
  private final PrintWriter out;
  private final boolean interactive;
  private int linesDrawn;
  private long lastLine;

  public TerminalProgress(PrintWriter out, boolean interactive) {
    this.out = out;
    this.interactive = interactive;
  }

  @Override
  public void progress(BackupProgress p) {
    if (interactive) {
      redraw(p);
    } else if (lastLine == 0 || System.nanoTime() - lastLine >= QUIET_NANOS) {
      out.println(summaryLine(p));
      out.flush();
      lastLine = System.nanoTime();
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

  private void redraw(BackupProgress p) {
    StringBuilder b = new StringBuilder();
    if (linesDrawn > 0) {
      b.append("\033[").append(linesDrawn).append('F');
    }
    b.append(summaryLine(p)).append("\033[K\n");
    for (BackupProgress.PartitionProgress part : p.partitions()) {
      b.append(String.format(Locale.ROOT, "  %s/%-5d records %,14d  %10s  lag %12s  segments %,7d  next offset %,d",
          p.topic(), part.partition(), part.recordsRead(), ByteSizes.format(part.bytesRead()), lag(part.lag()),
          part.segmentsStored(), part.position())).append("\033[K\n");
    }
    out.print(b);
    out.flush();
    linesDrawn = 1 + p.partitions().size();
  }

  static String summaryLine(BackupProgress p) {
    return String.format(Locale.ROOT, "%s: %,d records, %s read in %ds, lag %s, %d partitions", p.topic(),
        p.recordsRead(), ByteSizes.format(p.bytesRead()), p.elapsed().toSeconds(), lag(p.lag()), p.partitions().size());
  }

  private static String lag(long lag) {
    return lag < 0 ? "?" : String.format(Locale.ROOT, "%,d", lag);
  }
}
