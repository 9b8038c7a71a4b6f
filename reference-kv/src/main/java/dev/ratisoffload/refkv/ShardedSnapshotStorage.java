package dev.ratisoffload.refkv;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;
import org.apache.ratis.util.FileUtils;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores each snapshot as several files in its own directory:
 * {@code sm/snapshot-<term>_<index>/shard-0 .. shard-<n-1>} plus a small {@code index} file,
 * each with an {@code .md5} sidecar.
 *
 * <p>A snapshot directory is written under a temporary name and renamed when complete, so a
 * directory with the final name is whole. On load, a directory also counts as complete only when
 * its index file parses and names every shard present (a restore could have copied part of it).
 */
public final class ShardedSnapshotStorage implements StateMachineStorage {
  private static final Logger LOG = LoggerFactory.getLogger(ShardedSnapshotStorage.class);

  /** Snapshot directory names: {@code snapshot-<term>_<index>}. */
  public static final Pattern SNAPSHOT_DIR_REGEX = Pattern.compile("snapshot-(\\d+)_(\\d+)");
  public static final String INDEX_FILE = "index";
  private static final String TMP_PREFIX = ".tmp-";
  private static final String FORMAT = "refkv-sharded-1";

  private final int shards;
  private volatile File stateMachineDir;
  private final AtomicReference<FileListSnapshotInfo> latest = new AtomicReference<>();

  public ShardedSnapshotStorage(int shards) {
    if (shards < 1) {
      throw new IllegalArgumentException("shards must be at least 1, got " + shards);
    }
    this.shards = shards;
  }

  public static String snapshotDirName(TermIndex termIndex) {
    return "snapshot-" + termIndex.getTerm() + "_" + termIndex.getIndex();
  }

  public static String shardFileName(int shard) {
    return "shard-" + shard;
  }

  @Override
  public void init(RaftStorage raftStorage) {
    stateMachineDir = raftStorage.getStorageDir().getStateMachineDir();
    latest.set(null);
  }

  @Override
  public void format() {
    // Nothing to prepare: directories are created when a snapshot is written.
  }

  @Override
  public FileListSnapshotInfo getLatestSnapshot() {
    final FileListSnapshotInfo cached = latest.get();
    if (cached != null) {
      return cached;
    }
    try {
      return loadLatestSnapshot();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read snapshots in " + stateMachineDir, e);
    }
  }

  /** Rescans the directory (the leader may have installed a newer snapshot) and caches the result. */
  public FileListSnapshotInfo loadLatestSnapshot() throws IOException {
    final List<File> dirs = snapshotDirsNewestFirst();
    for (File dir : dirs) {
      final FileListSnapshotInfo info = describe(dir);
      if (info != null) {
        latest.set(info);
        return info;
      }
      LOG.warn("Skipping incomplete snapshot directory {}", dir);
    }
    latest.set(null);
    return null;
  }

  /** Writes the entries as a new snapshot directory and makes it the latest snapshot. */
  public FileListSnapshotInfo write(SortedMap<String, byte[]> entries, TermIndex termIndex) throws IOException {
    final File dir = new File(stateMachineDir, snapshotDirName(termIndex));
    if (dir.exists()) {
      FileUtils.deleteFully(dir); // an earlier attempt at the same index that was not complete
    }
    final File tmp = new File(stateMachineDir, TMP_PREFIX + dir.getName());
    if (tmp.exists()) {
      FileUtils.deleteFully(tmp);
    }
    Files.createDirectories(tmp.toPath());
    final List<SortedMap<String, byte[]>> parts = KvMap.split(entries, shards);
    for (int i = 0; i < shards; i++) {
      final SortedMap<String, byte[]> part = parts.get(i);
      writeFile(new File(tmp, shardFileName(i)), out -> KvMap.write(part, out));
    }
    final Properties index = new Properties();
    index.setProperty("format", FORMAT);
    index.setProperty("term", Long.toString(termIndex.getTerm()));
    index.setProperty("index", Long.toString(termIndex.getIndex()));
    index.setProperty("shards", Integer.toString(shards));
    index.setProperty("entries", Integer.toString(entries.size()));
    writeFile(new File(tmp, INDEX_FILE), out -> index.store(out, null)); // written last
    Files.move(tmp.toPath(), dir.toPath(), StandardCopyOption.ATOMIC_MOVE);

    final FileListSnapshotInfo info = describe(dir);
    if (info == null) {
      throw new IOException("snapshot directory " + dir + " is incomplete right after writing it");
    }
    latest.accumulateAndGet(info, (old, now) -> old == null || now.getIndex() > old.getIndex() ? now : old);
    return info;
  }

  /** Reads all shards of a snapshot, verifying each file's md5 sidecar when there is one. */
  public SortedMap<String, byte[]> read(FileListSnapshotInfo info) throws IOException {
    final SortedMap<String, byte[]> entries = new TreeMap<>();
    String expected = null;
    for (FileInfo file : info.getFiles()) {
      final File f = file.getPath().toFile();
      Md5Check.verify(f, file.getFileDigest());
      if (f.getName().equals(INDEX_FILE)) {
        expected = readIndex(f).getProperty("entries");
        continue;
      }
      try (InputStream in = new BufferedInputStream(Files.newInputStream(f.toPath()))) {
        entries.putAll(KvMap.read(in));
      } catch (IOException e) {
        throw new IOException("cannot read snapshot shard " + f + ": " + e.getMessage(), e);
      }
    }
    if (!Integer.toString(entries.size()).equals(expected)) {
      throw new IOException("snapshot " + info.getTermIndex() + " holds " + entries.size()
          + " keys but its index file says " + expected);
    }
    return entries;
  }

  @Override
  public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) throws IOException {
    final File dir = stateMachineDir;
    if (dir == null) {
      return;
    }
    final File[] stale = dir.listFiles(f -> f.getName().startsWith(TMP_PREFIX));
    if (stale != null) {
      for (File f : stale) {
        FileUtils.deleteFully(f);
      }
    }
    final int keep = policy == null ? SnapshotRetentionPolicy.DEFAULT_ALL_SNAPSHOTS_RETAINED
        : policy.getNumSnapshotsRetained();
    if (keep <= 0) {
      return;
    }
    final List<File> dirs = snapshotDirsNewestFirst();
    for (File old : dirs.subList(Math.min(keep, dirs.size()), dirs.size())) {
      LOG.info("Deleting old snapshot directory {}", old);
      FileUtils.deleteFully(old);
    }
  }

  private List<File> snapshotDirsNewestFirst() {
    final List<File> dirs = new ArrayList<>();
    final File[] children = stateMachineDir == null ? null : stateMachineDir.listFiles(File::isDirectory);
    if (children != null) {
      for (File child : children) {
        if (SNAPSHOT_DIR_REGEX.matcher(child.getName()).matches()) {
          dirs.add(child);
        }
      }
    }
    dirs.sort(Comparator.comparingLong((File f) -> termIndexOf(f).getIndex()).reversed());
    return dirs;
  }

  private static TermIndex termIndexOf(File dir) {
    final Matcher m = SNAPSHOT_DIR_REGEX.matcher(dir.getName());
    if (!m.matches()) {
      throw new IllegalArgumentException(dir + " is not a snapshot directory");
    }
    return TermIndex.valueOf(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
  }

  /** Describes a complete snapshot directory (shards first, index file last), or null if incomplete. */
  private static FileListSnapshotInfo describe(File dir) throws IOException {
    final File indexFile = new File(dir, INDEX_FILE);
    if (!indexFile.isFile()) {
      return null;
    }
    final Properties index = readIndex(indexFile);
    final TermIndex termIndex = termIndexOf(dir);
    if (!FORMAT.equals(index.getProperty("format"))
        || !Long.toString(termIndex.getTerm()).equals(index.getProperty("term"))
        || !Long.toString(termIndex.getIndex()).equals(index.getProperty("index"))) {
      throw new IOException("index file " + indexFile + " does not describe " + dir.getName() + ": " + index);
    }
    final int shardCount = Integer.parseInt(index.getProperty("shards", "-1"));
    final List<FileInfo> files = new ArrayList<>();
    for (int i = 0; i < shardCount; i++) {
      final File shard = new File(dir, shardFileName(i));
      if (!shard.isFile()) {
        return null;
      }
      files.add(fileInfo(shard));
    }
    files.add(fileInfo(indexFile));
    return new FileListSnapshotInfo(files, termIndex);
  }

  private static FileInfo fileInfo(File file) throws IOException {
    final MD5Hash md5 = MD5FileUtil.readStoredMd5ForFile(file); // null when there is no sidecar
    return new FileInfo(file.toPath(), md5);
  }

  private static Properties readIndex(File indexFile) throws IOException {
    final Properties index = new Properties();
    try (InputStream in = Files.newInputStream(indexFile.toPath())) {
      index.load(new InputStreamReader(in, StandardCharsets.ISO_8859_1));
    } catch (IllegalArgumentException e) {
      throw new IOException("malformed snapshot index file " + indexFile, e);
    }
    return index;
  }

  private interface Writer {
    void writeTo(OutputStream out) throws IOException;
  }

  /** Writes a file, forces it to disk, and saves its md5 sidecar. */
  private static void writeFile(File file, Writer writer) throws IOException {
    try (FileOutputStream fos = new FileOutputStream(file);
         OutputStream out = new BufferedOutputStream(fos)) {
      writer.writeTo(out);
      out.flush();
      fos.getChannel().force(true);
    }
    MD5FileUtil.computeAndSaveMd5ForFile(file);
  }
}
