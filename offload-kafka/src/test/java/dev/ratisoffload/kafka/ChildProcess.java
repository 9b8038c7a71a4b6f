package dev.ratisoffload.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A JVM running a main class of the test classpath, its output in a file. */
public final class ChildProcess implements AutoCloseable {

  private final Process process;
  private final Path output;

  private ChildProcess(Process process, Path output) {
    this.process = process;
    this.output = output;
  }

  public static ChildProcess start(Path dir, Class<?> main, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-cp");
    command.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    command.add("-Dorg.slf4j.simpleLogger.log.org.apache.kafka=warn");
    command.add(main.getName());
    command.addAll(List.of(args));
    Path output = Files.createTempFile(dir, "child-", ".log");
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    return new ChildProcess(process, output);
  }

  public Process process() {
    return process;
  }

  public String output() {
    try {
      return Files.readString(output, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public boolean printed(String line) {
    return output().lines().anyMatch(l -> l.equals(line));
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
