package dev.ratisoffload.store;

import dev.ratisoffload.io.DurableFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * An object store in a local or network directory: one file per key, directories for '/' segments.
 *
 * <p>A put writes a temporary file beside the target, forces it to disk, then hard-links it into place;
 * a link never replaces an existing file, so two writers of one key cannot both win and a reader never
 * sees a partial object. The directory is forced after the link so the new name survives a crash.
 * Temporary files start with '.', which no key may, so listings never show them.
 */
public final class DirectoryObjectStore implements ObjectStore {

  private final Path root;

  public DirectoryObjectStore(Path root) {
    this.root = root.toAbsolutePath().normalize();
  }

  public Path root() {
    return root;
  }

  @Override
  public PutOutcome putIfAbsent(String key, Content content) {
    Path target = resolve(key);
    Path temp = target.resolveSibling("." + target.getFileName() + ".tmp-" + UUID.randomUUID());
    try {
      Files.createDirectories(target.getParent());
      try (InputStream in = content.open();
          FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW,
              StandardOpenOption.WRITE)) {
        OutputStream out = Channels.newOutputStream(channel);
        long written = in.transferTo(out);
        if (written != content.size()) {
          throw new IOException("the content yielded " + written + " bytes, not " + content.size());
        }
        channel.force(true);
      }
      try {
        Files.createLink(target, temp);
      } catch (FileAlreadyExistsException exists) {
        if (content.sameBytesAs(Files.newInputStream(target))) {
          return PutOutcome.ALREADY_PRESENT;
        }
        throw new ObjectConflictException(describe(), key);
      }
      forceDirectory(target.getParent());
      return PutOutcome.CREATED;
    } catch (IOException e) {
      throw failure("write", key, e);
    } finally {
      deleteQuietly(temp);
    }
  }

  @Override
  public InputStream get(String key) {
    try {
      return Files.newInputStream(resolve(key));
    } catch (NoSuchFileException e) {
      throw new ObjectNotFoundException(describe(), key);
    } catch (IOException e) {
      throw failure("read", key, e);
    }
  }

  @Override
  public InputStream get(String key, long offset, long length) {
    try {
      FileChannel channel = FileChannel.open(resolve(key), StandardOpenOption.READ);
      channel.position(offset);
      return new BoundedInputStream(Channels.newInputStream(channel), length);
    } catch (NoSuchFileException e) {
      throw new ObjectNotFoundException(describe(), key);
    } catch (IOException e) {
      throw failure("read", key, e);
    }
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    try {
      BasicFileAttributes attributes =
          Files.readAttributes(resolve(key), BasicFileAttributes.class);
      return Optional.of(new ObjectInfo(key, attributes.size(), attributes.lastModifiedTime().toInstant()));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw failure("inspect", key, e);
    }
  }

  @Override
  public List<ObjectInfo> list(String prefix, String startAfter, int maxKeys) {
    ObjectKeys.requireValidPrefix(prefix);
    ObjectStore.requirePositive(maxKeys);
    // Walk only the deepest directory the prefix names in full.
    int slash = prefix.lastIndexOf('/');
    Path start = slash < 0 ? root : root.resolve(prefix.substring(0, slash));
    List<ObjectInfo> objects = new ArrayList<>();
    try {
      collect(start, prefix.substring(0, slash + 1), prefix, startAfter, maxKeys, objects);
    } catch (IOException e) {
      throw failure("list", prefix, e);
    }
    objects.sort(Comparator.comparing(ObjectInfo::key));
    return objects.size() <= maxKeys ? objects : List.copyOf(objects.subList(0, maxKeys));
  }

  /**
   * Adds the objects in {@code directory} (whose keys start with {@code base}) and below it. Names that
   * sort at or before {@code startAfter}, and directories whose every key does, are passed over unread,
   * so listing after the last key of a long chain costs its directory's names, not a look at each file.
   * Puts and deletes run meanwhile: an entry gone between reading its directory and looking at it is
   * skipped, not an error. Temporary files start with '.' and are never listed. Entries are visited in
   * name order, and every key below an entry sorts at or after its name, so once {@code maxKeys} keys
   * are found the entries whose names sort after all of them are passed over too.
   */
  private void collect(Path directory, String base, String prefix, String startAfter, int maxKeys,
      List<ObjectInfo> into) throws IOException {
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
      stream.forEach(entries::add);
    } catch (NoSuchFileException | NotDirectoryException gone) {
      return;
    } catch (DirectoryIteratorException e) {
      throw e.getCause();
    }
    entries.sort(Comparator.comparing(entry -> entry.getFileName().toString()));
    for (Path entry : entries) {
      String name = entry.getFileName().toString();
      String key = base + name;
      if (into.size() >= maxKeys && key.compareTo(into.get(into.size() - 1).key()) > 0) {
        return; // full, and every key from here on sorts after the ones found
      }
      boolean maybeObject = !name.startsWith(".") && key.startsWith(prefix) && key.compareTo(startAfter) > 0;
      String below = key + "/";
      boolean maybeDirectory = !name.startsWith(".") && (below.startsWith(prefix) || prefix.startsWith(below))
          && (below.compareTo(startAfter) >= 0 || startAfter.startsWith(below));
      if (!maybeObject && !maybeDirectory) {
        continue;
      }
      BasicFileAttributes attributes;
      try {
        attributes = Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      } catch (NoSuchFileException gone) {
        continue;
      }
      if (attributes.isDirectory() && maybeDirectory) {
        collect(entry, below, prefix, startAfter, maxKeys, into);
      } else if (attributes.isRegularFile() && maybeObject) {
        into.add(new ObjectInfo(key, attributes.size(), attributes.lastModifiedTime().toInstant()));
      }
      if (into.size() >= maxKeys) {
        into.sort(Comparator.comparing(ObjectInfo::key));
        into.subList(maxKeys, into.size()).clear();
      }
    }
  }

  @Override
  public void delete(String key) {
    try {
      Files.deleteIfExists(resolve(key));
    } catch (IOException e) {
      throw failure("delete", key, e);
    }
  }

  @Override
  public String describe() {
    return root.toUri().toString();
  }

  @Override
  public void close() {}

  private Path resolve(String key) {
    Path path = root.resolve(ObjectKeys.requireValid(key)).normalize();
    if (!path.startsWith(root)) {
      throw new IllegalArgumentException("object key '" + key + "' escapes the store root");
    }
    return path;
  }

  private StoreException failure(String action, String key, IOException e) {
    // A missing or unwritable root is what an unmounted network volume looks like: worth retrying.
    return new StoreUnavailableException(
        "cannot " + action + " " + key + " in " + describe() + ": " + e, e);
  }

  private static void forceDirectory(Path directory) {
    try {
      DurableFiles.syncDirectory(directory);
    } catch (IOException ignored) {
      // Some file systems cannot open a directory for reading; the link itself is already durable
      // there or cannot be made so.
    }
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException ignored) {
      // A leftover temporary file is invisible to listings and harmless.
    }
  }
}
