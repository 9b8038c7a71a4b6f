package dev.ratisoffload.bench;

import dev.ratisoffload.testkit.EmbeddedS3;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

final class CostBenchmark {
  CostBenchmark(Size size, Path work, EmbeddedS3 s3, List<Row> rows, List<String> notes, PrintStream out) {
  }

  void run() {
  }
}
