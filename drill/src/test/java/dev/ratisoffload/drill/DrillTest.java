package dev.ratisoffload.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.testkit.EmbeddedKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The main job, end to end on the embedded servers with small settings, and its refusals. */
class DrillTest {

  private record Run(int code, String output) {}

  private static Run drill(String... args) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    int code = Drill.run(out, args);
    return new Run(code, bytes.toString(StandardCharsets.UTF_8));
  }

  @Test
  void restoresEverythingAndReportsIt() {
    Run run = drill("--groups", "2", "--keys", "200", "--partitions", "2", "--records", "150");
    String out = run.output();
    assertEquals(0, run.code(), out);
    assertTrue(out.contains("RESULT: PASSED"), out);
    for (String step : List.of("start servers", "write keys", "publish", "write topic", "kafka backup", "destroy",
        "restore groups", "restart until serving", "verify keys", "kafka restore", "compare records",
        "group resumes", "recovery time")) {
      assertTrue(Pattern.compile("(?m)^  " + step + " +[0-9]+\\.[0-9] s").matcher(out).find(), step + "\n" + out);
    }
    // Both groups restored from their newest generation, and every key it covers served.
    assertEquals(2, count(out, "(?m)^  group [0-9a-f-]{36}: generation index [0-9]+ \\(term [0-9]+\\) onto 3 peers, "
        + "[0-9]+ keys$"), out);
    assertEquals(2, count(out, "(?m)^  group [0-9a-f-]{36}: all [0-9]+ keys up to index [0-9]+ served with their"
        + " values, [0-9]+ keys in all; the [0-9]+ writes acknowledged after it absent, as expected; new writes"
        + " accepted$"), out);
    assertEquals(1, count(out, "(?m)^  topic drill-[0-9a-z-]+ as drill-[0-9a-z-]+: 2 partitions, 300 records$"), out);
    assertEquals(1, count(out, "(?m)^  topic drill-[0-9a-z-]+: all 300 records of 2 partitions equal in offset,"
        + " timestamp, key, value and headers$"), out);
    assertEquals(1, count(out, "(?m)^  consumer group drill-[0-9a-z-]+-readers: resumed on 2 partitions at the record"
        + " after its last commit \\(offsets \\[75, 75\\]\\)$"), out);
  }

  /** The options an operator uses against real servers: a store and a broker the drill did not start. */
  @Test
  void runsAgainstAGivenStoreAndBrokerAndLeavesNothingBehind(@TempDir Path store) throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
      Run run = drill("--store", store.toUri().toString(), "--bootstrap-server", kafka.bootstrapServers(),
          "--groups", "1", "--keys", "100", "--partitions", "1", "--records", "60");
      String out = run.output();
      assertEquals(0, run.code(), out);
      assertTrue(out.contains("RESULT: PASSED"), out);
      assertTrue(Pattern.compile("(?m)^  store    " + Pattern.quote(store.toUri().toString()) + "drill-[0-9a-z-]+/$")
          .matcher(out).find(), out);
      // On a broker it did not start, the drill deletes the topic and restores it under another name.
      assertEquals(1, count(out, "(?m)^  topic (drill-[0-9a-z-]+) as \\1-restored: 1 partition, 60 records$"), out);
      try (Admin admin = kafka.admin()) {
        assertEquals(Set.of(), admin.listTopics().names().get(30, TimeUnit.SECONDS), "topics left behind");
      }
      try (Stream<Path> left = Files.list(store)) {
        assertEquals(List.of(), left.toList(), "the run's backups are deleted");
      }
    }
  }

  /** A failing check is told only after the other checks ended, each failure in it. */
  @Test
  void parallelChecksAllEndBeforeTheFirstFailureIsThrown() {
    java.util.concurrent.CountDownLatch firstFailed = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean slowEnded = new java.util.concurrent.atomic.AtomicBoolean();
    Exception thrown = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
        () -> Drill.inParallel(List.of("fails", "slow", "also fails"), item -> {
          switch (item) {
            case "fails" -> {
              firstFailed.countDown();
              throw new IllegalStateException("first");
            }
            case "slow" -> {
              firstFailed.await();
              for (int i = 0; i < 1_000_000; i++) {
                Thread.onSpinWait();
              }
              slowEnded.set(true);
            }
            default -> throw new IllegalArgumentException("second");
          }
        }));
    assertTrue(slowEnded.get(), "the failure was thrown while a check still ran");
    assertEquals("first", thrown.getMessage());
    assertEquals(1, thrown.getSuppressed().length);
  }

  @Test
  void storeFlagsWithoutAStoreAreAUsageError() {
    Run run = drill("--endpoint", "http://127.0.0.1:9000");
    assertEquals(2, run.code(), run.output());
    Run none = drill("--groups", "0");
    assertEquals(2, none.code(), none.output());
  }

  /** The drill reads its store flags by the rules of offload's and the plugin's (an http(s) endpoint). */
  @Test
  void aStoreFlagOffloadWouldRefuseIsAUsageError() {
    Run run = drill("--store", "s3://backups/drills", "--endpoint", "ftp://127.0.0.1:9000");
    assertEquals(2, run.code(), run.output());
    assertFalse(run.output().contains("Disaster-recovery drill"), "nothing started: " + run.output());
  }

  @Test
  void aDifferentRecordIsReported() {
    TopicRecords.Stored a = new TopicRecords.Stored(7, 1000, bytes("k"), bytes("v"),
        List.of(new RecordHeader("h", bytes("1"))));
    SortedMap<Integer, List<TopicRecords.Stored>> expected = new TreeMap<>(
        Map.of(0, List.of(a)));
    assertEquals(List.of(), TopicRecords.differences(expected, expected));
    for (TopicRecords.Stored other : List.of(
        new TopicRecords.Stored(8, 1000, bytes("k"), bytes("v"), a.headers()),
        new TopicRecords.Stored(7, 1001, bytes("k"), bytes("v"), a.headers()),
        new TopicRecords.Stored(7, 1000, null, bytes("v"), a.headers()),
        new TopicRecords.Stored(7, 1000, bytes("k"), null, a.headers()),
        new TopicRecords.Stored(7, 1000, bytes("k"), bytes("v"), List.of(new RecordHeader("h", null))))) {
      List<String> found = TopicRecords.differences(expected, new TreeMap<>(Map.of(0, List.of(other))));
      assertEquals(1, found.size(), other.toString());
      assertTrue(found.get(0).startsWith("partition 0 offset 7: "), found.get(0));
    }
    assertEquals(List.of("partition 0: 0 records, expected 1"),
        TopicRecords.differences(expected, new TreeMap<>(Map.of(0, List.of()))));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static int count(String text, String regex) {
    return (int) Pattern.compile(regex).matcher(text).results().count();
  }
}
