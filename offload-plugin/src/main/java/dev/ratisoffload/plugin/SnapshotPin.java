package dev.ratisoffload.plugin;

import dev.ratisoffload.io.DurableFiles;
import dev.ratisoffload.publish.SnapshotSource.PinnedFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.statemachine.SnapshotInfo;

/**
 * A snapshot's files pinned in a spool directory: hard links (a copy when the spool is on another
 * volume), so Ratis deleting or replacing the snapshot cannot tear a read. Closing removes the pins.
 */
final class SnapshotPin implements AutoCloseable {

  /** The snapshot's files disappeared before they could be pinned: Ratis replaced the snapshot. */
  static final class SnapshotGoneException extends IOException {
    SnapshotGoneException(String message) {
      super(message);
    }
  }

  private final Path directory;
  private final List<PinnedFile> files;

  private SnapshotPin(Path directory, List<PinnedFile> files) {
    this.directory = directory;
    this.files = files;
  }

  /**
   * Pins every file of the snapshot under {@code spool}. Paths are recorded relative to the group's
   * directory, where a restore puts them back.
   */
  static SnapshotPin pin(SnapshotInfo snapshot, Path groupDir, Path spool) throws IOException {
    Path directory = spool.resolve(snapshot.getTerm() + "_" + snapshot.getIndex() + "-" + System.nanoTime());
    Files.createDirectories(directory);
    List<PinnedFile> files = new ArrayList<>();
    SnapshotPin pin = new SnapshotPin(directory, files);
    try {
      for (FileInfo info : snapshot.getFiles()) {
        Path source = info.getPath().toAbsolutePath().normalize();
        if (!source.startsWith(groupDir)) {
          throw new IOException("snapshot file " + source + " is outside the group directory " + groupDir
              + ": only snapshots kept in the group's directory can be restored in place");
        }
        String relative = groupDir.relativize(source).toString().replace('\\', '/');
        Path pinned = directory.resolve(relative);
        Files.createDirectories(pinned.getParent());
        link(source, pinned);
        String md5 = info.getFileDigest() == null ? null : info.getFileDigest().toString();
        files.add(new PinnedFile(relative, pinned, md5));
      }
      return pin;
    } catch (IOException | RuntimeException e) {
      pin.close();
      throw e;
    }
  }

  private static void link(Path source, Path pinned) throws IOException {
    try {
      Files.createLink(pinned, source);
    } catch (NoSuchFileException e) {
      throw new SnapshotGoneException("snapshot file " + source + " was deleted before it was pinned");
    } catch (FileSystemException | UnsupportedOperationException e) {
      // Another volume (or no hard links): a copy pins as well, at the cost of the bytes.
      try {
        Files.copy(source, pinned, StandardCopyOption.COPY_ATTRIBUTES);
      } catch (NoSuchFileException gone) {
        throw new SnapshotGoneException("snapshot file " + source + " was deleted before it was pinned");
      }
    }
  }

  List<PinnedFile> files() {
    return files;
  }

  /** Removes everything under a spool directory, e.g. pins left by a crash. */
  static void clear(Path spool) {
    try {
      DurableFiles.deleteTree(spool);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot clear the spool directory " + spool, e);
    }
  }

  @Override
  public void close() {
    clear(directory);
  }
}
