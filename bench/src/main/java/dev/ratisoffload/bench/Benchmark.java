package dev.ratisoffload.bench;

import dev.ratisoffload.testkit.EmbeddedS3;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** One benchmark of a run: what every benchmark shares (size, work directory, store, the table). */
abstract class Benchmark {

  protected final Size size;
  protected final Path work;
  protected final EmbeddedS3 s3;
  protected final boolean profile;
  protected final List<Row> rows;
  protected final List<String> notes;
  protected final PrintStream out;

  Benchmark(Setting setting) {
    this.size = setting.size();
    this.work = setting.work();
    this.s3 = setting.s3();
    this.profile = setting.profile();
    this.rows = setting.rows();
    this.notes = setting.notes();
    this.out = setting.out();
  }

  /** Runs the benchmark, adding its rows (and notes) to the table. */
  abstract void run() throws Exception;

  /** A participant's JVM options: its heap (and others), and with {@code --profile} a JFR recording named after it. */
  protected List<String> jvmOptions(String name, String heap, String... more) {
    List<String> options = new ArrayList<>(List.of(heap));
    options.addAll(List.of(more));
    if (profile) {
      options.add("-XX:StartFlightRecording=filename=" + work.resolve(name + ".jfr") + ",settings=profile,"
          + "dumponexit=true");
    }
    return options;
  }

  /** Where and how the benchmarks of one run work, and where they report. */
  record Setting(Size size, Path work, EmbeddedS3 s3, boolean profile, List<Row> rows, List<String> notes,
      PrintStream out) {}
}
