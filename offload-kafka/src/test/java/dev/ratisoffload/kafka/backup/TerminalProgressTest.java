package dev.ratisoffload.kafka.backup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Progress shows records, bytes and lag per partition on a terminal, one line at a time elsewhere. */
class TerminalProgressTest {

  private static final BackupProgress PROGRESS = new BackupProgress("orders", "id", Duration.ofSeconds(12), List.of(
      new BackupProgress.PartitionProgress(0, 1500, 3 * 1024 * 1024, 2, 1200, 1500, 40),
      new BackupProgress.PartitionProgress(1, 10, 100, 0, 0, 10, -1)));

  @Test
  void aTerminalGetsOneLinePerPartitionRedrawnInPlace() {
    StringWriter bytes = new StringWriter();
    TerminalProgress progress = new TerminalProgress(new PrintWriter(bytes), true);
    progress.progress(PROGRESS);
    progress.progress(PROGRESS);
    String out = bytes.toString();
    assertTrue(out.contains("orders: 1,510 records, 3.0 MiB read in 12s, lag 40, 2 partitions"), out);
    assertTrue(out.contains("orders/0     records          1,500     3.0 MiB  lag           40"), out);
    assertTrue(out.contains("lag            ?"), out);
    assertTrue(out.contains("\033[3F"), "the second drawing moves up over the first");
  }

  @Test
  void elsewhereOneSummaryLineAtMostEveryThirtySeconds() {
    StringWriter bytes = new StringWriter();
    TerminalProgress progress = new TerminalProgress(new PrintWriter(bytes), false);
    progress.progress(PROGRESS);
    progress.progress(PROGRESS);
    assertEquals(1, bytes.toString().lines().count());
  }
}
