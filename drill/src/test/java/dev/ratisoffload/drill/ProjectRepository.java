package dev.ratisoffload.drill;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The project's artifacts in a local Maven repository, for tools that resolve them by coordinates (JBang's
 * {@code //DEPS dev.ratisoffload:...}) when the build has not installed them: the parent pom, and each
 * module's pom and a jar of its {@code target/classes}, as {@code mvn install} would lay them out.
 * Artifacts laid out this way count as installed locally, so no remote repository's copy of the same
 * SNAPSHOT (for example an old one in the user's repository) is taken instead.
 */
final class ProjectRepository {

  static final String GROUP = "dev.ratisoffload";
  static final String VERSION = "0.1.0-SNAPSHOT";
  static final String PARENT = "ratis-offload-parent";
  /** What the scripts and the tests' {@code --deps} name; each must have been compiled. */
  static final List<String> REQUIRED = List.of("offload-core", "offload-kafka", "offload-plugin",
      "offload-restore", "reference-kv", "restore-tool");

  private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");

  private ProjectRepository() {}

  /** The local repository Maven itself uses (passed by the build), read by the tests as a remote one. */
  static Path userRepository() {
    String configured = System.getProperty("jbang.test.maven-repository");
    return configured != null && !configured.isBlank() ? Path.of(configured)
        : Path.of(System.getProperty("user.home"), ".m2", "repository");
  }

  /**
   * Lays out the project's artifacts in {@code repository}, replacing those of an earlier run, and
   * returns it.
   */
  static Path layOut(Path projectRoot, Path repository) throws IOException {
    Path group = repository.resolve(GROUP.replace('.', '/'));
    deleteTree(group);
    install(group, PARENT, projectRoot.resolve("pom.xml"), null);
    List<String> missing = new ArrayList<>();
    Matcher module = MODULE.matcher(Files.readString(projectRoot.resolve("pom.xml")));
    while (module.find()) {
      String name = module.group(1).trim();
      Path dir = projectRoot.resolve(name);
      Path classes = dir.resolve("target/classes");
      if (Files.isDirectory(classes)) {
        install(group, artifactId(dir.resolve("pom.xml")), dir.resolve("pom.xml"), classes);
      } else if (REQUIRED.contains(name)) {
        missing.add(name);
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException("modules " + missing + " are not compiled: build with the reactor,"
          + " e.g. mvn -pl drill -am verify");
    }
    return repository;
  }

  private static void install(Path group, String artifactId, Path pom, Path classes) throws IOException {
    Path dir = Files.createDirectories(group.resolve(artifactId).resolve(VERSION));
    Files.copy(pom, dir.resolve(artifactId + "-" + VERSION + ".pom"));
    if (classes != null) {
      jar(classes, dir.resolve(artifactId + "-" + VERSION + ".jar"));
    }
  }

  /** The module's own artifactId: the first one after its parent block. */
  private static String artifactId(Path pom) throws IOException {
    String text = Files.readString(pom).replaceAll("(?s)<parent>.*?</parent>", "");
    Matcher m = Pattern.compile("<artifactId>([^<]+)</artifactId>").matcher(text);
    if (!m.find()) {
      throw new IllegalStateException("no artifactId in " + pom);
    }
    return m.group(1).trim();
  }

  private static void jar(Path classes, Path jar) throws IOException {
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file, manifest);
        Stream<Path> paths = Files.walk(classes)) {
      for (Path p : paths.sorted().toList()) {
        String name = classes.relativize(p).toString().replace('\\', '/');
        if (name.isEmpty() || name.equals("META-INF/MANIFEST.MF")) {
          continue;
        }
        boolean directory = Files.isDirectory(p);
        out.putNextEntry(new JarEntry(directory ? name + "/" : name));
        if (!directory) {
          Files.copy(p, out);
        }
        out.closeEntry();
      }
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
