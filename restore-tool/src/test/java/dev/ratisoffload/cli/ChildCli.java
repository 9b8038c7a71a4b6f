package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code offload} in a JVM of its own, for what one JVM cannot show in-process: a heap of another
 * size, or the logging setup as the command line starts it (slf4j reads its configuration once a JVM).
 */
final class ChildCli {

  private ChildCli() {}

  /**
   * @param jvmOptions options for the child JVM, e.g. {@code -Xmx128m}
   * @param environment variables added to this JVM's environment
   * @param scratch a directory for the child's output files
   */
  static Cli.Result run(List<String> jvmOptions, Map<String, String> environment, Path scratch, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(javaExecutable()));
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), OffloadCommand.class.getName()));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(scratch, "child", ".out");
    Path err = Files.createTempFile(scratch, "child", ".err");
    ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    builder.environment().putAll(environment);
    Process child = builder.start();
    boolean ended = child.waitFor(120, TimeUnit.SECONDS);
    if (!ended) {
      child.destroyForcibly();
    }
    assertTrue(ended, "offload " + String.join(" ", args) + " ended within 120 s");
    return new Cli.Result(child.exitValue(), Files.readString(out), Files.readString(err));
  }

  static String javaExecutable() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
