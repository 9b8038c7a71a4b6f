package dev.ratisoffload.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Writer;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A benchmark participant in its own JVM (so its heap can be capped and its CPU is its own), driven by
 * one-line commands on its standard input. It answers each command with one line on its standard output:
 * {@code OK key=value ...} or {@code ERR message}; everything it logs goes to a file.
 */
final class ChildJvm implements AutoCloseable {

  private final String name;
  private final Process process;
  private final BufferedReader replies;
  private final Writer commands;
  private final Path log;

  private ChildJvm(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
    this.replies = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    this.commands = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
  }

  /** Starts {@code mainClass} with these JVM options; its log goes to {@code log}. */
  static ChildJvm start(String name, List<String> jvmOptions, Class<?> mainClass, Path log, String... args)
      throws IOException {
    return start(name, List.of(), jvmOptions, mainClass, log, args);
  }

  /** Like {@link #start(String, List, Class, Path, String...)}, run under a command such as {@code nice}. */
  static ChildJvm start(String name, List<String> prefix, List<String> jvmOptions, Class<?> mainClass, Path log,
      String... args) throws IOException {
    List<String> command = new ArrayList<>(prefix);
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-Daws.accessKeyId=" + dev.ratisoffload.testkit.EmbeddedS3.ACCESS_KEY);
    command.add("-Daws.secretAccessKey=" + dev.ratisoffload.testkit.EmbeddedS3.SECRET_KEY);
    command.add("-Daws.region=us-east-1");
    command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    command.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
    command.add("-cp");
    command.add(classpath());
    command.add(mainClass.getName());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(log.toFile());
    builder.environment().remove("JAVA_TOOL_OPTIONS");
    return new ChildJvm(name, builder.start(), log);
  }

  /** Sends a command and waits for its reply; an {@code ERR} reply or a dead child is an exception. */
  Map<String, String> call(String command) throws IOException {
    commands.write(command + "\n");
    commands.flush();
    String line;
    while ((line = replies.readLine()) != null) {
      if (line.startsWith("OK")) {
        return parse(line.substring(2).trim());
      }
      if (line.startsWith("ERR")) {
        throw new IOException(name + " failed '" + command + "': " + line.substring(3).trim()
            + " (log: " + log + ")");
      }
    }
    throw new IOException(name + " exited while running '" + command + "' (log: " + log + ")");
  }

  static Map<String, String> parse(String text) {
    Map<String, String> values = new LinkedHashMap<>();
    for (String pair : text.split(" ")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        values.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
    }
    return values;
  }

  @Override
  public void close() {
    try {
      commands.write("quit\n");
      commands.flush();
    } catch (IOException ignored) {
      // already gone
    }
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /**
   * This JVM's class path, also when it runs under {@code exec:java} (whose classes come from a class
   * loader, not from {@code java.class.path}).
   */
  static String classpath() {
    Set<String> entries = new LinkedHashSet<>();
    for (ClassLoader loader = ChildJvm.class.getClassLoader(); loader != null; loader = loader.getParent()) {
      if (loader instanceof URLClassLoader urls) {
        for (URL url : urls.getURLs()) {
          try {
            entries.add(Paths.get(url.toURI()).toString());
          } catch (URISyntaxException | IllegalArgumentException e) {
            // not a file: skip
          }
        }
      }
    }
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!entry.contains("plexus-classworlds")) {
        entries.add(entry);
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  /** The child's side: reads commands, runs them, writes one reply line each. */
  interface Handler {
    /** Runs one command; returns the reply's values. */
    Map<String, Object> handle(String[] words) throws Exception;
  }

  /** Runs a child's command loop on standard input until {@code quit} or end of input. */
  static void serve(Handler handler) throws IOException {
    PrintStream out = System.out;
    System.setOut(System.err); // only replies on the real standard output
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      line = line.trim();
      if (line.isEmpty()) {
        continue;
      }
      if (line.equals("quit")) {
        break;
      }
      try {
        Map<String, Object> reply = handler.handle(line.split(" "));
        StringBuilder s = new StringBuilder("OK");
        reply.forEach((k, v) -> s.append(' ').append(k).append('=').append(v));
        out.println(s);
      } catch (Throwable e) {
        e.printStackTrace();
        out.println("ERR " + String.valueOf(e).replace('\n', ' '));
      }
      out.flush();
    }
  }
}
