package dev.ratisoffload.restore;

import dev.ratisoffload.format.ManifestRules;
import dev.ratisoffload.store.IntegrityException;
import java.nio.file.Path;

/** Resolves manifest paths so that no file is ever created outside the directory being written. */
final class SafePaths {

  private SafePaths() {}

  /**
   * The file a manifest path names under {@code root}.
   *
   * @throws IntegrityException when the path is unsafe or would leave {@code root}
   */
  static Path resolveInside(Path root, String manifestPath, String manifestKey) {
    try {
      ManifestRules.requireSafePath(manifestPath);
    } catch (IllegalArgumentException e) {
      throw new IntegrityException("manifest " + manifestKey + " names an unsafe file: " + e.getMessage());
    }
    Path base = root.toAbsolutePath().normalize();
    Path resolved = base;
    for (String segment : manifestPath.split("/", -1)) {
      resolved = resolved.resolve(segment);
    }
    resolved = resolved.normalize();
    // Checked again here, whatever the rules allow: a path leaving the directory is never followed.
    if (!resolved.startsWith(base) || resolved.equals(base)) {
      throw new IntegrityException("manifest " + manifestKey + " names file '" + manifestPath
          + "' outside the group directory");
    }
    return resolved;
  }
}
