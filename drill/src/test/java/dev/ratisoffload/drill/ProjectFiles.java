package dev.ratisoffload.drill;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The repository's files and commands, for tests that check documentation and scripts. */
final class ProjectFiles {

  private ProjectFiles() {}

  /** The repository root: the parent of the module Maven runs the tests in. */
  static Path root() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve(".ci/run"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("cannot find the repository root above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }

  /** The result of a finished command. */
  record Result(int exitCode, String output) {}

  /** Runs a command in a directory, output and errors merged, with a deadline. */
  static Result run(Path directory, long timeoutSeconds, List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).start();
    process.getOutputStream().close();
    byte[] output = process.getInputStream().readAllBytes();
    if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException(command + " did not finish in " + timeoutSeconds + " s");
    }
    return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
  }
}
