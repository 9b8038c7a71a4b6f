package dev.ratisoffload.cli;

import dev.ratisoffload.primitives.ByteSizes;
import dev.ratisoffload.restore.TransferListener;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Shows a long transfer's progress on one terminal line of stderr, rewritten in place at most a few
 * times a second: bytes done of all, percent, rate and time left. Silent when disabled (piped output).
 */
final class ProgressMeter implements TransferListener {

  private static final long REDRAW_NANOS = 250_000_000L;

  private final PrintWriter err;
  private final String label;
  private final LongSupplier nanoClock;
  private long total;
  private long done;
  private long startedAt;
  private long drawnAt;
  private int drawnWidth;

  ProgressMeter(PrintWriter err, String label, LongSupplier nanoClock) {
    this.err = err;
    this.label = label;
    this.nanoClock = nanoClock;
  }

  /** A meter when progress should show, else a listener that does nothing. */
  static TransferListener create(ProgressOptions.Mode mode, PrintWriter err, String label) {
    return mode.enabled() ? new ProgressMeter(err, label, System::nanoTime) : TransferListener.NONE;
  }

  @Override
  public void started(long totalBytes) {
    total = totalBytes;
    startedAt = nanoClock.getAsLong();
    drawnAt = startedAt - REDRAW_NANOS;
    draw();
  }

  @Override
  public void transferred(long bytes) {
    done += bytes;
    if (nanoClock.getAsLong() - drawnAt >= REDRAW_NANOS) {
      draw();
    }
  }

  @Override
  public void finished() {
    // Clear the line: what follows (a table, an error) starts on a clean one.
    err.print("\r" + " ".repeat(drawnWidth) + "\r");
    err.flush();
  }

  String line() {
    long now = nanoClock.getAsLong();
    double seconds = Math.max(1e-9, (now - startedAt) / 1e9);
    double rate = done / seconds;
    String left = rate <= 0 || done == 0 ? "?" : Formats.duration(
        Duration.ofMillis((long) ((total - done) / rate * 1000)));
    int percent = total == 0 ? 100 : (int) (done * 100 / total);
    return String.format(Locale.ROOT, "%s %s of %s (%d%%), %s/s, %s left", label, ByteSizes.format(done),
        ByteSizes.format(total), percent, ByteSizes.format((long) rate), left);
  }

  private void draw() {
    drawnAt = nanoClock.getAsLong();
    String line = line();
    err.print("\r" + line + " ".repeat(Math.max(0, drawnWidth - line.length())));
    drawnWidth = line.length();
    err.flush();
  }
}
