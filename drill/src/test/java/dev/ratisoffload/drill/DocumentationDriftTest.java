package dev.ratisoffload.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.cli.ExitCodes;
import dev.ratisoffload.cli.OffloadCommand;
import dev.ratisoffload.cli.SelectionOptions;
import dev.ratisoffload.cli.StoreOptions;
import dev.ratisoffload.plugin.OffloadConfigKeys;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every configuration key, metric name, command-line flag and exit code that the README, docs/ and
 * runbook/ mention exists in the code, so the documentation cannot drift from what the software does.
 */
class DocumentationDriftTest {

  private static final Pattern KEY = Pattern.compile("\\boffload\\.[a-z0-9-]+(?:\\.[a-z0-9-]+)+");
  private static final Pattern METRIC = Pattern.compile("\\bratis_offload_[a-z_]*[a-z]");

  static List<Path> documents() throws IOException {
    Path root = ProjectFiles.root();
    List<Path> docs = new ArrayList<>();
    docs.add(root.resolve("README.md"));
    for (String dir : List.of("docs", "runbook")) {
      if (Files.isDirectory(root.resolve(dir))) {
        try (Stream<Path> files = Files.walk(root.resolve(dir))) {
          files.filter(p -> p.toString().endsWith(".md") || p.toString().endsWith(".yml")).forEach(docs::add);
        }
      }
    }
    return docs;
  }

  static Set<String> mentioned(Pattern pattern) throws IOException {
    Set<String> found = new TreeSet<>();
    for (Path doc : documents()) {
      Matcher m = pattern.matcher(Files.readString(doc));
      while (m.find()) {
        found.add(m.group());
      }
    }
    return found;
  }

  /** Every {@code *_KEY} constant of {@link OffloadConfigKeys} and its nested classes. */
  static Set<String> configurationKeys() throws IllegalAccessException {
    Set<String> keys = new TreeSet<>();
    for (Class<?> area : OffloadConfigKeys.class.getClasses()) {
      for (Field field : area.getFields()) {
        if (Modifier.isStatic(field.getModifiers()) && field.getName().endsWith("_KEY")) {
          keys.add((String) field.get(null));
        }
      }
    }
    return keys;
  }

  @Test
  void everyDocumentedKeyExists() throws Exception {
    Set<String> keys = configurationKeys();
    Set<String> unknown = new TreeSet<>(mentioned(KEY));
    unknown.removeIf(token -> keys.contains(token) || token.endsWith(".jar"));
    assertEquals(Set.of(), unknown, "keys named in the documentation but not in OffloadConfigKeys");
  }

  @Test
  void everyKeyIsDocumentedInTheReadme() throws Exception {
    String readme = Files.readString(ProjectFiles.root().resolve("README.md"));
    Set<String> undocumented = new TreeSet<>();
    for (String key : configurationKeys()) {
      String last = key.substring(key.lastIndexOf('.') + 1);
      if (!readme.contains("`" + key + "`") && !readme.contains("`" + last + "`")) {
        undocumented.add(key);
      }
    }
    assertEquals(Set.of(), undocumented, "keys missing from the README's table");
  }

  @Test
  void everyDocumentedMetricExists() throws Exception {
    String source = Files.readString(ProjectFiles.root()
        .resolve("offload-plugin/src/main/java/dev/ratisoffload/plugin/OffloadMetrics.java"));
    Set<String> defined = new TreeSet<>();
    Matcher m = Pattern.compile("\"(ratis_offload_[a-z_]+)\"").matcher(source);
    while (m.find()) {
      defined.add(m.group(1));
    }
    assertTrue(defined.size() >= 10, "found the metric definitions: " + defined);
    Set<String> unknown = new TreeSet<>(mentioned(METRIC));
    // Prometheus derives these series from histograms.
    unknown.removeIf(name -> defined.contains(name.replaceAll("_(bucket|sum|count)$", "")));
    assertEquals(Set.of(), unknown, "metrics named in the documentation but not defined");
  }

  private static final Pattern COMMAND_LINE = Pattern.compile("(?m)^\\s*(?:scripts/)?offload ([a-z]+)((?:[^\\n]*\\\\\\n)*[^\\n]*)");
  private static final Pattern FLAG = Pattern.compile("(?<![\\w-])--[a-z][a-z0-9-]*");
  private static final Pattern NESTED = Pattern.compile("\\s+([a-z]+)\\b");

  /** Every flag used in a documented {@code offload <command> ...} line is an option of that command. */
  @Test
  void everyDocumentedFlagExists() throws Exception {
    CommandLine offload = new CommandLine(new OffloadCommand());
    Set<String> problems = new TreeSet<>();
    int checked = 0;
    for (Path doc : documents()) {
      Matcher line = COMMAND_LINE.matcher(Files.readString(doc));
      while (line.find()) {
        CommandLine sub = offload.getSubcommands().get(line.group(1));
        if (sub == null) {
          continue; // prose such as "offload is ..." is not a command line
        }
        String rest = line.group(2);
        String name = line.group(1);
        // Nested commands, such as "offload kafka backup": the flags are the innermost command's.
        Matcher word = NESTED.matcher(rest);
        while (word.lookingAt() && sub.getSubcommands().containsKey(word.group(1))) {
          name = name + " " + word.group(1);
          sub = sub.getSubcommands().get(word.group(1));
          rest = rest.substring(word.end());
          word = NESTED.matcher(rest);
        }
        Matcher flag = FLAG.matcher(rest);
        while (flag.find()) {
          checked++;
          if (sub.getCommandSpec().findOption(flag.group()) == null
              && offload.getCommandSpec().findOption(flag.group()) == null) {
            problems.add(ProjectFiles.root().relativize(doc) + ": offload " + name + " " + flag.group());
          }
        }
      }
    }
    assertTrue(checked > 20, "found the documented command lines (" + checked + " flags)");
    assertEquals(Set.of(), problems, "flags the documentation uses that the commands do not have");
  }

  private static final Pattern SCRIPT_LINE = Pattern.compile("scripts/([a-z_]+)\\.java((?:[^\\n]*\\\\\\n)*[^\\n]*)");
  /** Scripts that hand the options they do not declare to an offload subcommand. */
  private static final java.util.Map<String, List<String>> PASSED_THROUGH = java.util.Map.of(
      "kafka_standby", List.of("kafka restore"));
  private static final Pattern DECLARED_FLAG = Pattern.compile("\"(--[a-z][a-z0-9-]*)\"");

  /**
   * Every flag used after a documented {@code scripts/NAME.java} is declared by that script, by the shared
   * sources in {@code scripts/lib/}, or by the command line's option classes the scripts mix in.
   */
  @Test
  void everyDocumentedScriptFlagExists() throws Exception {
    Set<String> shared = new TreeSet<>();
    for (Class<?> options : List.of(StoreOptions.class, SelectionOptions.class)) {
      for (Field field : options.getDeclaredFields()) {
        CommandLine.Option option = field.getAnnotation(CommandLine.Option.class);
        if (option != null) {
          shared.addAll(List.of(option.names()));
        }
      }
    }
    try (Stream<Path> lib = Files.list(ProjectFiles.root().resolve("scripts/lib"))) {
      for (Path source : lib.toList()) {
        shared.addAll(declaredFlags(source));
      }
    }
    Set<String> problems = new TreeSet<>();
    int checked = 0;
    for (Path doc : documents()) {
      Matcher line = SCRIPT_LINE.matcher(Files.readString(doc));
      while (line.find()) {
        Path script = ProjectFiles.root().resolve("scripts/" + line.group(1) + ".java");
        if (!Files.isRegularFile(script)) {
          problems.add(ProjectFiles.root().relativize(doc) + ": no script " + script.getFileName());
          continue;
        }
        Set<String> known = new TreeSet<>(shared);
        known.addAll(declaredFlags(script));
        for (String command : PASSED_THROUGH.getOrDefault(line.group(1), List.of())) {
          CommandLine sub = new CommandLine(new OffloadCommand());
          for (String name : command.split(" ")) {
            sub = sub.getSubcommands().get(name);
          }
          sub.getCommandSpec().options().forEach(o -> known.addAll(List.of(o.names())));
        }
        Matcher flag = FLAG.matcher(line.group(2));
        while (flag.find()) {
          checked++;
          if (!known.contains(flag.group())) {
            problems.add(ProjectFiles.root().relativize(doc) + ": " + line.group(1) + " " + flag.group());
          }
        }
      }
    }
    assertTrue(checked > 5, "found the documented script lines (" + checked + " flags)");
    assertEquals(Set.of(), problems, "flags the documentation gives scripts that do not have them");
  }

  private static Set<String> declaredFlags(Path source) throws IOException {
    Set<String> flags = new TreeSet<>();
    Matcher m = DECLARED_FLAG.matcher(Files.readString(source));
    while (m.find()) {
      flags.add(m.group(1));
    }
    return flags;
  }

  /** {@code mvn ... -pl drill ... -Dexec.args="..."}, possibly continued with a backslash: the drill's arguments. */
  private static final Pattern DRILL_LINE =
      Pattern.compile("-pl drill (?:[^\\n]*\\\\\\n)*[^\\n]*?-Dexec\\.args=\"([^\"]*)\"");

  /** Every flag a documented drill command line passes is an option of the drill. */
  @Test
  void everyDocumentedDrillFlagExists() throws Exception {
    CommandLine drill = new CommandLine(new Drill());
    Set<String> problems = new TreeSet<>();
    int checked = 0;
    for (Path doc : documents()) {
      Matcher line = DRILL_LINE.matcher(Files.readString(doc));
      while (line.find()) {
        Matcher flag = FLAG.matcher(line.group(1));
        while (flag.find()) {
          checked++;
          if (drill.getCommandSpec().findOption(flag.group()) == null) {
            problems.add(ProjectFiles.root().relativize(doc) + ": drill " + flag.group());
          }
        }
      }
    }
    assertTrue(checked >= 3, "found the documented drill command lines (" + checked + " flags)");
    assertEquals(Set.of(), problems, "flags the documentation passes to the drill that it does not have");
  }

  /** Every option of the drill is in the README's table of them. */
  @Test
  void everyDrillOptionIsInTheReadme() throws Exception {
    String readme = Files.readString(ProjectFiles.root().resolve("README.md"));
    Set<String> undocumented = new TreeSet<>();
    for (CommandLine.Model.OptionSpec option : new CommandLine(new Drill()).getCommandSpec().options()) {
      String name = option.longestName();
      if (!option.usageHelp() && !option.versionHelp() && !Pattern.compile("`" + name + "[ `]").matcher(readme).find()) {
        undocumented.add(name);
      }
    }
    assertEquals(Set.of(), undocumented, "drill options missing from the README");
  }

  /** The exit-code tables list exactly the codes the command line defines. */
  @Test
  void documentedExitCodesExist() throws Exception {
    Set<Integer> defined = new TreeSet<>();
    for (Field field : ExitCodes.class.getFields()) {
      if (field.getType() == int.class && Modifier.isStatic(field.getModifiers())) {
        defined.add(field.getInt(null));
      }
    }
    Pattern row = Pattern.compile("(?m)^\\| ([0-9]) \\|");
    for (String name : List.of("docs/cli.md", "runbook/README.md")) {
      Set<Integer> documented = new TreeSet<>();
      Matcher m = row.matcher(Files.readString(ProjectFiles.root().resolve(name)));
      while (m.find()) {
        documented.add(Integer.parseInt(m.group(1)));
      }
      assertEquals(defined, documented, "exit codes in " + name);
    }
  }

  private static final Pattern QUIETENED = Pattern.compile("(?m)^org\\.slf4j\\.simpleLogger\\.log\\.([\\w.]+)=info$");
  private static final Pattern LOGGER = Pattern.compile("`((?:org\\.apache|software\\.amazon)\\.[\\w.]+)`");

  /**
   * The loggers an operator must keep at INFO are named once, in the runbook, and are exactly those the
   * command line's logging configuration quietens; other pages point there instead of listing their own.
   */
  @Test
  void theRunbookNamesExactlyTheLoggersTheCommandLineQuietens() throws Exception {
    Set<String> quietened = new TreeSet<>();
    Matcher q = QUIETENED.matcher(Files.readString(ProjectFiles.root()
        .resolve("restore-tool/src/main/resources/simplelogger.properties")));
    while (q.find()) {
      quietened.add(q.group(1));
    }
    assertTrue(quietened.size() >= 5, "parsed the configuration: " + quietened);
    assertEquals(quietened, loggersNamedIn("runbook/README.md"));
    for (String other : List.of("runbook/failures.md", "docs/cli.md", "README.md", "docs/design.md")) {
      assertEquals(Set.of(), loggersNamedIn(other), other + " points to the runbook's list instead");
    }
  }

  private static Set<String> loggersNamedIn(String doc) throws IOException {
    Set<String> named = new TreeSet<>();
    Matcher m = LOGGER.matcher(Files.readString(ProjectFiles.root().resolve(doc)));
    while (m.find()) {
      named.add(m.group(1));
    }
    return named;
  }
}
