package dev.ratisoffload.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

/**
 * Every configuration key and metric name that the README, docs/ and runbook/ mention exists in the
 * code, so the documentation cannot drift from what the software does.
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
}
