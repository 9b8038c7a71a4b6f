package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressMeterTest {

  @Test
  void showsBytesRateAndTimeLeftThenClearsTheLine() {
    AtomicLong nanos = new AtomicLong();
    StringWriter text = new StringWriter();
    ProgressMeter meter = new ProgressMeter(new PrintWriter(text), "restored", nanos::get);
    meter.started(10L * 1024 * 1024);
    nanos.addAndGet(2_000_000_000L);
    meter.transferred(4L * 1024 * 1024);

    assertEquals("restored 4.0 MiB of 10.0 MiB (40%), 2.0 MiB/s, 3s left", meter.line());
    assertTrue(text.toString().contains("\rrestored 4.0 MiB of 10.0 MiB (40%)"), text.toString());
    meter.finished();
    assertTrue(text.toString().endsWith("\r"), "the line is cleared for what follows");
  }

  @Test
  void redrawsAtMostFourTimesASecond() {
    AtomicLong nanos = new AtomicLong();
    StringWriter text = new StringWriter();
    ProgressMeter meter = new ProgressMeter(new PrintWriter(text), "verified", nanos::get);
    meter.started(1000);
    for (int i = 0; i < 100; i++) {
      meter.transferred(1);
    }
    assertEquals(1, text.toString().split("\r", -1).length - 1, "only the first draw, no time has passed");
  }

  @Test
  void durationsAreWrittenAsRatisWritesThem() {
    assertEquals("450ms", Formats.duration(java.time.Duration.ofMillis(450)));
    assertEquals("42s", Formats.duration(java.time.Duration.ofSeconds(42)));
    assertEquals("15min", Formats.duration(java.time.Duration.ofMinutes(15)));
    assertEquals("26h5min", Formats.duration(java.time.Duration.ofMinutes(26 * 60 + 5)));
    assertEquals("9d4h", Formats.duration(java.time.Duration.ofHours(9 * 24 + 4)));
  }
}
