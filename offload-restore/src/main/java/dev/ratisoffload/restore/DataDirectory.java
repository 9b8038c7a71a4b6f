package dev.ratisoffload.restore;

import dev.ratisoffload.io.DurableFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One peer's Ratis storage directory while a restore writes into it. Holding it means holding an
 * exclusive lock, so two restores never write into one directory at once (and cleaning a killed run's
 * staging directories cannot touch a running one's). Groups are staged in hidden directories beside
 * their target, on the same file system, and renamed into place: a group directory is either absent
 * or complete.
 */
final class DataDirectory implements AutoCloseable {

  static final String LOCK_FILE = ".offload-restore.lock";
  /** Records which cluster the directory's restored groups come from. */
  static final String CLUSTER_FILE = ".offload-restore.cluster";
  static final String STAGING_PREFIX = ".offload-restore-";
  private static final Pattern STAGING_NAME =
      Pattern.compile("\\.offload-restore-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-[0-9a-f]{8}");
  private static final SecureRandom RANDOM = new SecureRandom();
  /** What Ratis keeps in a group directory, never in a storage directory. */
  private static final String GROUP_LOCK = "in_use.lock";
  private static final String GROUP_META = RatisDirectoryWriter.CURRENT_DIR + "/" + RatisDirectoryWriter.RAFT_META;
  private static final Pattern GROUP_NAME =
      Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

  private final Path root;
  private final FileChannel lockChannel;
  private final FileLock lock;

  private DataDirectory(Path root, FileChannel lockChannel, FileLock lock) {
    this.root = root;
    this.lockChannel = lockChannel;
    this.lock = lock;
  }

  /**
   * Refuses, before anything is written, a data directory that cannot be a peer's storage directory: a
   * blank one (an unset shell variable would restore into the working directory) or one that is itself a
   * group directory (the groups would land in {@code <uuid>/<uuid>}, where Ratis never looks).
   *
   * @throws InvalidRestoreRequestException naming what is wrong and what to give instead
   */
  public static void requireStorageDirectory(Path dataDir) {
    if (dataDir.toString().isBlank()) {
      throw new InvalidRestoreRequestException("--data-dir is empty (an unset shell variable?); nothing was"
          + " written. Give the peer's Ratis storage directory (raft.server.storage.dir)");
    }
    Path dir = dataDir.toAbsolutePath().normalize();
    String holds = groupMarker(dir);
    if (holds != null) {
      throw new InvalidRestoreRequestException("--data-dir " + dir + " is itself a Ratis group directory (it"
          + " holds " + holds + "); nothing was written. Give the peer's storage directory, the one that"
          + " holds the group directories (raft.server.storage.dir), e.g. " + dir.getParent());
    }
  }

  /** What makes {@code dir} a group directory, or null: Ratis's lock, its metadata, or a UUID name with current/. */
  private static String groupMarker(Path dir) {
    if (Files.exists(dir.resolve(GROUP_LOCK), LinkOption.NOFOLLOW_LINKS)) {
      return GROUP_LOCK;
    }
    if (Files.exists(dir.resolve(GROUP_META), LinkOption.NOFOLLOW_LINKS)) {
      return GROUP_META;
    }
    boolean uuidName = dir.getFileName() != null && GROUP_NAME.matcher(dir.getFileName().toString()).matches();
    return uuidName && Files.isDirectory(dir.resolve(RatisDirectoryWriter.CURRENT_DIR))
        ? RatisDirectoryWriter.CURRENT_DIR + "/" : null;
  }

  /**
   * Creates the directory if needed, locks it, and removes staging directories a killed restore left.
   *
   * @throws TargetRefusedException when it cannot be written or another restore holds it
   */
  public static DataDirectory open(Path dataDir) {
    Path root = dataDir.toAbsolutePath().normalize();
    FileChannel channel = null;
    try {
      if (Files.exists(root) && !Files.isDirectory(root)) {
        throw new TargetRefusedException("--data-dir " + root + " is not a directory; nothing was written."
            + " Name the peer's Ratis storage directory");
      }
      Files.createDirectories(root);
      channel = openLockFile(root);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        throw new TargetRefusedException("another restore is writing into " + root
            + "; nothing was written. Wait for it to finish, or stop it, then run this restore again");
      }
      DataDirectory directory = new DataDirectory(root, channel, lock);
      directory.removeStaleStaging();
      return directory;
    } catch (IOException e) {
      closeQuietly(channel);
      throw new TargetRefusedException("cannot prepare " + root + ": " + e
          + "; nothing was written. Check that the directory is writable, then run the restore again", e);
    } catch (RuntimeException e) {
      closeQuietly(channel);
      throw e;
    }
  }

  /**
   * Opens (creating it if needed) the lock file without following a symbolic link (O_NOFOLLOW, so no
   * race between a check and the open): a link planted there could make a restore run as root create or
   * lock a file anywhere. Anything else that is not a regular file (a FIFO would block the open) is
   * refused too.
   */
  private static FileChannel openLockFile(Path root) throws IOException {
    Path file = root.resolve(LOCK_FILE);
    if (Files.exists(file, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      throw notAFile(file);
    }
    try {
      return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
    } catch (FileSystemException e) {
      if (Files.isSymbolicLink(file)) {
        throw notAFile(file);
      }
      throw e;
    }
  }

  /** A marker or lock file of this class that is a symbolic link (or not a regular file) is refused. */
  private static TargetRefusedException notAFile(Path file) {
    return new TargetRefusedException(file + " is a symbolic link or not a regular file, which a restore never"
        + " creates; nothing was written. Remove it (and find out who planted it), then run the restore again");
  }

  public Path root() {
    return root;
  }

  /** Where a group's directory belongs: its UUID, as Ratis names it. */
  public Path groupDirectory(String group) {
    return root.resolve(group);
  }

  /** @throws TargetRefusedException when the group's directory (or anything by its name) exists */
  public void requireAbsent(String group) {
    requireAbsent(root, group);
  }

  /** The same check before the directory is opened: {@code dataDir} may not exist yet. */
  static void requireAbsent(Path dataDir, String group) {
    Path target = dataDir.toAbsolutePath().normalize().resolve(group);
    if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
      throw new TargetRefusedException("group directory " + target + " already exists; nothing was"
          + " restored and it was left as it was. Move it away (or delete it) and run the restore again,"
          + " or leave this group out with --group");
    }
  }

  /**
   * Refuses a directory whose restored groups come from another cluster: a peer serving groups of two
   * clusters is never what a disaster recovery wants.
   */
  public void requireOwnedBy(String cluster) {
    Path file = root.resolve(CLUSTER_FILE);
    String owner;
    try {
      if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        return;
      }
      if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
        throw notAFile(file);
      }
      Properties properties = new Properties();
      try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
        properties.load(in);
      }
      owner = properties.getProperty("cluster");
    } catch (IOException e) {
      throw new TargetRefusedException("cannot read " + file + ": " + e + "; nothing was written."
          + " Check that " + root + " is readable, then run the restore again", e);
    }
    if (!cluster.equals(owner)) {
      throw new TargetRefusedException(root + " already holds groups restored from cluster " + owner
          + ", not " + cluster + "; nothing was written. Restore into another peer's directory, or"
          + " delete " + file + " if that directory no longer serves cluster " + owner);
    }
  }

  /** Records that the directory holds groups of {@code cluster} (see {@link #requireOwnedBy}). */
  public void claimFor(String cluster) throws IOException {
    requireOwnedBy(cluster);
    Path file = root.resolve(CLUSTER_FILE);
    if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    Properties properties = new Properties();
    properties.setProperty("cluster", cluster);
    StringWriter text = new StringWriter();
    properties.store(text, "groups in this directory were restored by offload from this cluster");
    Path temp = root.resolve(CLUSTER_FILE + ".tmp");
    Files.deleteIfExists(temp);
    DurableFiles.writeNew(temp, text.toString().getBytes(StandardCharsets.ISO_8859_1));
    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
    DurableFiles.syncDirectory(root);
  }

  /** A new, empty staging directory for a group, beside its target. */
  public Path newStagingDirectory(String group) throws IOException {
    byte[] random = new byte[4];
    RANDOM.nextBytes(random);
    Path staging = root.resolve(STAGING_PREFIX + group + "-" + HexFormat.of().formatHex(random));
    return Files.createDirectory(staging);
  }

  /**
   * Renames a complete staging directory to the group's directory and forces the rename to disk.
   *
   * @throws TargetRefusedException when the group's directory appeared meanwhile
   */
  public Path commit(Path staging, String group) throws IOException {
    requireAbsent(group);
    Path target = groupDirectory(group);
    try {
      Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (FileAlreadyExistsException e) {
      throw new TargetRefusedException("group directory " + target + " appeared during the restore; it"
          + " was left as it was. Find out what created it before restoring again", e);
    }
    DurableFiles.syncDirectory(root);
    return target;
  }

  /** Removes a staging directory; a failure leaves it for the next restore to remove. */
  public void discard(Path staging) {
    try {
      DurableFiles.deleteTree(staging);
    } catch (IOException ignored) {
      // Only hidden staging directories are left behind; the next restore removes them.
    }
  }

  /** Staging directories left by a restore that was killed; only this class's own names are removed. */
  List<Path> staleStaging() throws IOException {
    try (Stream<Path> entries = Files.list(root)) {
      return entries.filter(p -> STAGING_NAME.matcher(p.getFileName().toString()).matches()).toList();
    }
  }

  private void removeStaleStaging() throws IOException {
    for (Path stale : staleStaging()) {
      DurableFiles.deleteTree(stale);
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
    } catch (IOException ignored) {
      // closing the channel releases it too
    }
    closeQuietly(lockChannel);
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // nothing was written through it
      }
    }
  }
}
