package dev.ratisoffload.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md's layer list is the import graph of the main code: every package is in exactly one
 * layer, and a package imports only packages of layers above its own, so the map cannot drift from the
 * code and no lower layer can start depending on a higher one unnoticed.
 */
class LayeringTest {

  private static final String PREFIX = "dev.ratisoffload.";
  private static final Pattern LAYER = Pattern.compile("^(\\d+)\\. \\*\\*");
  private static final Pattern PACKAGE = Pattern.compile("`(dev\\.ratisoffload\\.[a-z.]+[a-z])`");
  private static final Pattern DECLARED = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
  private static final Pattern IMPORT =
      Pattern.compile("^import (?:static )?(dev\\.ratisoffload\\.[a-z0-9.]+?)\\.[A-Z]", Pattern.MULTILINE);
  /** Test support, outside the layers: only applications and tests may use it. */
  private static final List<String> OUTSIDE = List.of(PREFIX + "refkv", PREFIX + "testkit");

  @Test
  void everyPackageIsInOneLayerAndImportsOnlyLayersAboveIt() throws IOException {
    Map<String, Integer> layers = documentedLayers();
    Map<String, TreeSet<String>> imports = mainImports();
    int top = layers.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    List<String> problems = new ArrayList<>();
    for (var entry : imports.entrySet()) {
      String from = entry.getKey();
      if (OUTSIDE.contains(from)) {
        continue;
      }
      Integer layer = layers.get(from);
      if (layer == null) {
        problems.add(from + " is in no layer of docs/design.md");
        continue;
      }
      for (String to : entry.getValue()) {
        Integer target = layers.get(to);
        if (OUTSIDE.contains(to)) {
          if (layer != top) {
            problems.add(from + " (layer " + layer + ") imports the test support " + to);
          }
        } else if (target == null) {
          problems.add(from + " imports " + to + ", which is in no layer of docs/design.md");
        } else if (target >= layer) {
          problems.add(from + " (layer " + layer + ") imports " + to + " (layer " + target + ")");
        }
      }
    }
    assertEquals(List.of(), problems, "docs/design.md's layers and the imports of the main code disagree");
  }

  @Test
  void everyPackageTheListNamesExists() throws IOException {
    Map<String, Integer> layers = documentedLayers();
    assertTrue(layers.containsKey(PREFIX + "store") && layers.containsKey(PREFIX + "cli"),
        "the layer list of docs/design.md was not found: " + layers);
    TreeSet<String> stale = new TreeSet<>(layers.keySet());
    stale.removeAll(mainImports().keySet());
    assertEquals(new TreeSet<>(), stale, "docs/design.md's layers name packages that hold no main code");
  }

  /** Package to layer number, from the numbered items of the "Layers" section of docs/design.md. */
  private static Map<String, Integer> documentedLayers() throws IOException {
    String design = Files.readString(ProjectFiles.root().resolve("docs/design.md"));
    int start = design.indexOf("\n## Layers\n");
    int end = design.indexOf("\n## ", start + 1);
    assertTrue(start >= 0 && end > start, "docs/design.md has no \"Layers\" section");
    Map<String, Integer> layers = new LinkedHashMap<>();
    int current = 0;
    for (String line : design.substring(start, end).split("\n")) {
      Matcher item = LAYER.matcher(line);
      if (item.find()) {
        current = Integer.parseInt(item.group(1));
      } else if (!line.startsWith(" ")) {
        current = 0; // a paragraph after the list, not a layer
      }
      if (current == 0) {
        continue;
      }
      Matcher pkg = PACKAGE.matcher(line);
      while (pkg.find()) {
        Integer before = layers.putIfAbsent(pkg.group(1), current);
        assertTrue(before == null || before == current, pkg.group(1) + " is in layers " + before + " and " + current);
      }
    }
    return layers;
  }

  /** Each package of main code, every module, to the project packages it imports (its own excluded). */
  private static Map<String, TreeSet<String>> mainImports() throws IOException {
    Map<String, TreeSet<String>> imports = new TreeMap<>();
    try (Stream<Path> files = Files.walk(ProjectFiles.root())) {
      for (Path file : files.filter(LayeringTest::isMainSource).toList()) {
        String text = Files.readString(file);
        Matcher declared = DECLARED.matcher(text);
        if (!declared.find()) {
          continue;
        }
        TreeSet<String> used = imports.computeIfAbsent(declared.group(1), k -> new TreeSet<>());
        Matcher imported = IMPORT.matcher(text);
        while (imported.find()) {
          if (!imported.group(1).equals(declared.group(1))) {
            used.add(imported.group(1));
          }
        }
      }
    }
    return imports;
  }

  private static boolean isMainSource(Path file) {
    String path = file.toString().replace('\\', '/');
    return path.endsWith(".java") && path.contains("/src/main/java/") && !path.contains("/target/");
  }
}
