package dev.ratisoffload.format;

import dev.ratisoffload.primitives.ClusterIds;
import dev.ratisoffload.primitives.Hashes;
import dev.ratisoffload.primitives.Printable;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The invariants of a manifest, checked when writing and when reading it. Each violation is an
 * {@link IllegalArgumentException} whose message names the field and the offending value.
 */
public final class ManifestRules {

  private static final Pattern PATH_SEGMENT = Pattern.compile("[A-Za-z0-9._+=,@-]{1,255}");
  private static final int MAX_PATH = 1024;
  /** The longest name a file system takes for one path segment (NAME_MAX of ext4, XFS, ...), in bytes. */
  public static final int MAX_SEGMENT_BYTES = 255;
  /** A restore writes Ratis's MD5 sidecar, {@code <path>.md5}, beside each file that has an MD5. */
  public static final String MD5_SIDECAR_SUFFIX = ".md5";
  /** Names Ratis owns in a group directory; a restore writes them itself. */
  private static final Set<String> RESERVED_TOP = Set.of("current", "in_use.lock");

  private ManifestRules() {}

  /** Throws unless the text is a UUID in canonical lowercase form. */
  public static String requireGroupUuid(String text) {
    try {
      if (text != null && UUID.fromString(text).toString().equals(text)) {
        return text;
      }
    } catch (IllegalArgumentException ignored) {
      // reported below
    }
    throw new IllegalArgumentException("invalid group id '" + Printable.excerpt(text) + "': expected a lowercase UUID");
  }

  /**
   * Throws unless the path is safe to create under a group directory: relative, '/'-separated, no empty,
   * "." or ".." segment, conservative characters, and not a name Ratis itself owns.
   */
  public static String requireSafePath(String path) {
    if (path == null || path.isEmpty() || path.length() > MAX_PATH) {
      throw new IllegalArgumentException("file path '" + Printable.excerpt(path) + "' is empty or too long");
    }
    String[] segments = path.split("/", -1);
    for (String segment : segments) {
      if (!PATH_SEGMENT.matcher(segment).matches() || segment.equals(".") || segment.equals("..")) {
        throw new IllegalArgumentException("unsafe file path '" + Printable.excerpt(path)
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
    ClusterIds.require(m.cluster());
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
    // A restore creates every file, and "<path>.md5" beside each file with an MD5: each of those names
    // must fit the file system, be created once, and not also be a directory of another ("a" beside
    // "a/b", or "a" with an MD5 beside "a.md5/b"), or the restore could not write what verify passed.
    Map<String, String> created = new HashMap<>();
    files.forEach(file -> created.put(file.path(), "file " + file.path()));
    for (Manifest.FileEntry file : files) {
      if (file.md5() != null) {
        String sidecar = file.path() + MD5_SIDECAR_SUFFIX;
        if (lastSegment(sidecar).length() > MAX_SEGMENT_BYTES) {
          throw new IllegalArgumentException("invalid file path " + file.path() + ": the name of its MD5"
              + " sidecar is longer than the " + MAX_SEGMENT_BYTES + " bytes a file system allows");
        }
        require(created.putIfAbsent(sidecar, "the MD5 sidecar of " + file.path()) == null,
            "file path (clashes with the MD5 sidecar of " + file.path() + ")", sidecar);
      }
    }
    for (String path : paths) {
      for (int slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) {
        String directory = path.substring(0, slash);
        require(!created.containsKey(directory), "file path (" + directory + " is also "
            + created.get(directory) + ", so it cannot be a directory)", path);
      }
    }
  }

  /** The last segment; its length is its size in bytes, as a segment holds ASCII only. */
  private static String lastSegment(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  private static void require(boolean ok, String field, Object value) {
    if (!ok) {
      String shown = Printable.excerpt(String.valueOf(value));
      throw new IllegalArgumentException("invalid " + field + ": " + shown);
    }
  }
}
