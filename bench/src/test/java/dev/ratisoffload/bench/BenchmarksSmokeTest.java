package dev.ratisoffload.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the benchmark command in its small mode so the benchmark code keeps working. Benchmarks are not
 * tests: nothing here looks at a figure, only that every row of the table was printed.
 */
class BenchmarksSmokeTest {

  @Test
  void smallModePrintsTheWholeTable(@TempDir Path work) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    int code = Benchmarks.run(new String[] {"--size", "small", "--work", work.toString()}, out);
    String printed = bytes.toString(StandardCharsets.UTF_8);
    System.out.println(printed);
    assertEquals(0, code, printed);
    List<String> table = printed.lines().filter(l -> l.startsWith("| ")).toList();
    for (String workload : List.of("| workload", "| publish ", "| incremental: append 1%",
        "| incremental: rewrite a 1% region", "| restore ", "| cost: p99 write latency",
        "| kafka backup: 50k records of 100 B", "| kafka backup: 50k records of 1 KiB",
        "| kafka restore: 50k records of 100 B", "| kafka restore: 50k records of 1 KiB",
        "| scale: 50 groups on one peer, first pass",
        "| scale: most publishes writing to the store at once", "| scale: idle pass")) {
      assertTrue(table.stream().anyMatch(l -> l.startsWith(workload)), "no row " + workload + " in\n" + printed);
    }
    for (String row : table) {
      assertTrue(row.split("\\|").length >= 7, "a row without every column: " + row);
    }
    String costRun = printed.lines().filter(l -> l.contains("cost run 1: ")).findFirst()
        .orElseThrow(() -> new AssertionError("no first cost run's line in\n" + printed));
    // Numbers as printf writes them in the default locale: a decimal point or a comma.
    Matcher cpu = Pattern.compile("group CPU (\\d+[.,]\\d) s[,)].*group CPU (\\d+[.,]\\d) s[,)]")
        .matcher(costRun);
    assertTrue(cpu.find(), "no CPU time, idle and publishing, in the first cost run's line: " + costRun);
    assertTrue(Double.parseDouble(cpu.group(2).replace(',', '.')) > 0,
        "the group used no CPU while publishing: " + costRun);
    if (Files.isDirectory(Path.of("/proc/self/task"))) { // where Linux tells each thread's wait for a CPU
      Pattern waited = Pattern.compile("Raft's threads waited \\d+[.,]\\d s for a CPU\\)");
      assertEquals(2, waited.matcher(costRun).results().count(),
          "Raft's wait for a CPU, idle and publishing, not in the first cost run's line: " + costRun);
    }
  }

  @Test
  void recordSizesMustBeDistinctPositiveNumbers() throws Exception {
    assertEquals(List.of(100, 1024), Benchmarks.recordSizes("100,1024"));
    assertEquals(List.of(512), Benchmarks.recordSizes("512"));
    for (String wrong : List.of("100,100", "0", "-5", "100,x", "", "1KiB")) {
      assertNull(Benchmarks.recordSizes(wrong), wrong);
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int code = Benchmarks.run(new String[] {"--kafka-record-bytes", "100,100"},
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    assertEquals(2, code);
    assertTrue(bytes.toString(StandardCharsets.UTF_8).contains("--kafka-record-bytes takes distinct sizes"));
  }
}
