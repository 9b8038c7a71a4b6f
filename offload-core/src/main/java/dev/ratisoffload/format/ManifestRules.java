package dev.ratisoffload.format;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The invariants of a manifest, checked when writing and when reading it. Each violation is an
 * {@link IllegalArgumentException} whose message names the field and the offending value.
 */
public final class ManifestRules {

  private static final Pattern CLUSTER_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  private static final Pattern PATH_SEGMENT = Pattern.compile("[A-Za-z0-9._+=,@-]{1,255}");
  private static final int MAX_PATH = 1024;
  /** Names Ratis owns in a group directory; a restore writes them itself. */
  private static final Set<String> RESERVED_TOP = Set.of("current", "in_use.lock");

  private ManifestRules() {}

  public static boolean isValidClusterId(String id) {
    return id != null && CLUSTER_ID.matcher(id).matches();
  }

  /** Throws unless the cluster id is 1-64 of letters, digits, '.', '_' and '-', not starting with '.'. */
  public static String requireClusterId(String id) {
    if (!isValidClusterId(id)) {
      throw new IllegalArgumentException("invalid cluster id '" + id
          + "': expected 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit");
    }
    return id;
  }

  /** Throws unless the text is a UUID in canonical lowercase form. */
  public static String requireGroupUuid(String text) {
    try {
      if (text != null && UUID.fromString(text).toString().equals(text)) {
        return text;
      }
    } catch (IllegalArgumentException ignored) {
      // reported below
    }
    throw new IllegalArgumentException("invalid group id '" + text + "': expected a lowercase UUID");
  }

  /**
   * Throws unless the path is safe to create under a group directory: relative, '/'-separated, no empty,
   * "." or ".." segment, conservative characters, and not a name Ratis itself owns.
   */
  public static String requireSafePath(String path) {
    if (path == null || path.isEmpty() || path.length() > MAX_PATH) {
      throw new IllegalArgumentException("file path '" + path + "' is empty or too long");
    }
    String[] segments = path.split("/", -1);
    for (String segment : segments) {
      if (!PATH_SEGMENT.matcher(segment).matches() || segment.equals(".") || segment.equals("..")) {
        throw new IllegalArgumentException("unsafe file path '" + HashedJson.printable(path)
            + "': segments must be 1-255 of [A-Za-z0-9._+=,@-] and not '.' or '..'");
      }
    }
    if (RESERVED_TOP.contains(segments[0])) {
      throw new IllegalArgumentException("file path '" + path + "' is inside '" + segments[0]
          + "', which Ratis owns");
    }
    return path;
  }

  static void check(Manifest m) {
    require(m.format() == Manifest.FORMAT_VERSION || m.format() == Manifest.FORMAT_1, "format", m.format());
    requireClusterId(m.cluster());
    requireGroupUuid(m.group());
    require(m.term() >= 0, "term", m.term());
    require(m.index() >= 0, "index", m.index());
    PeerRules.check(m.peers(), m.publisher());
    require(m.publisher().leaderTerm() >= m.term(), "publisher.leaderTerm", m.publisher().leaderTerm());
    require(m.createdAt() != null, "createdAt", null);
    require(m.toolVersion() != null, "toolVersion", null);
    require(m.files() != null && !m.files().isEmpty(), "files", "none");
    checkFiles(m.files());
  }

  private static void checkFiles(List<Manifest.FileEntry> files) {
    Set<String> paths = new HashSet<>();
    for (Manifest.FileEntry file : files) {
      require(file != null, "file", null);
      requireSafePath(file.path());
      require(paths.add(file.path()), "file path (duplicate)", file.path());
      require(file.size() >= 0, "size of " + file.path(), file.size());
      require(Hashes.isSha256Hex(file.sha256()), "sha256 of " + file.path(), file.sha256());
      require(file.md5() == null || Hashes.isMd5Hex(file.md5()), "md5 of " + file.path(), file.md5());
      long sum = 0;
      for (Manifest.ChunkRef chunk : file.chunks()) {
        require(chunk != null && Hashes.isSha256Hex(chunk.sha256()), "chunk of " + file.path(), chunk);
        require(chunk.size() > 0 && chunk.size() <= ChunkingPolicy.LIMIT,
            "chunk size in " + file.path(), chunk.size());
        sum += chunk.size();
      }
      require(sum == file.size(), "chunk sizes of " + file.path() + " (sum " + sum + ", file size "
          + file.size() + ")", sum);
    }
    // A restore writes "<path>.md5" beside each file with an MD5: no file may take that name.
    for (Manifest.FileEntry file : files) {
      require(file.md5() == null || !paths.contains(file.path() + ".md5"),
          "file path (clashes with the MD5 sidecar of " + file.path() + ")", file.path() + ".md5");
    }
    // A file may not also be a directory of another ("a" and "a/b"): one of them could not be created.
    for (String path : paths) {
      for (int slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) {
        require(!paths.contains(path.substring(0, slash)), "file path (also a directory)",
            path.substring(0, slash));
      }
    }
  }

  private static void require(boolean ok, String field, Object value) {
    if (!ok) {
      String shown = HashedJson.printable(String.valueOf(value));
      throw new IllegalArgumentException("invalid " + field + ": " + shown);
    }
  }
}
