package dev.ratisoffload.bench;

import dev.ratisoffload.io.DurableFiles;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;
import org.apache.ratis.util.MD5FileUtil;

/**
 * A state machine whose snapshot is several large files (see {@link BlobSpec}), as a database's would
 * be: {@code sm/blob-<term>_<index>/data-NN} with Ratis's {@code .md5} sidecars, plus a small
 * {@code spec} file. Log entries are tiny commands that grow or rewrite the content, and {@code w ...}
 * writes that only count (the client load of the cost benchmark). Taking a snapshot materialises the
 * files; a file unchanged since the previous snapshot is hard-linked instead of written again.
 */
final class BlobStateMachine extends BaseStateMachine {

  static final String SPEC_FILE = "spec";
  private static final Pattern DIR = Pattern.compile("blob-(\\d+)_(\\d+)");

  private final Storage storage = new Storage();
  private BlobSpec spec = BlobSpec.empty();
  private long writes;

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
    super.initialize(server, groupId, raftStorage);
    storage.init(raftStorage);
    FileListSnapshotInfo latest = storage.getLatestSnapshot();
    if (latest != null) {
      Path dir = latest.getFiles().get(0).getPath().getParent();
      synchronized (this) {
        spec = BlobSpec.parse(Files.readString(dir.resolve(SPEC_FILE)));
        setLastAppliedTermIndex(latest.getTermIndex());
      }
    }
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return storage;
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    String command = entry.getStateMachineLogEntry().getLogData().toString(StandardCharsets.UTF_8);
    synchronized (this) {
      try {
        if (command.startsWith("w ")) {
          writes++;
        } else {
          spec = spec.apply(command.split(" "));
        }
      } catch (RuntimeException e) {
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        return CompletableFuture.failedFuture(e);
      }
      updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
      return CompletableFuture.completedFuture(Message.valueOf(Long.toString(spec.totalBytes())));
    }
  }

  @Override
  public long takeSnapshot() throws IOException {
    BlobSpec copy;
    TermIndex last;
    synchronized (this) {
      copy = spec.copy();
      last = getLastAppliedTermIndex();
    }
    if (last == null || last.getIndex() < 0) {
      return RaftLog.INVALID_LOG_INDEX;
    }
    FileListSnapshotInfo latest = storage.getLatestSnapshot();
    if (latest != null && latest.getTermIndex().equals(last)) {
      return last.getIndex();
    }
    storage.write(copy, last);
    return last.getIndex();
  }

  /** Snapshot directories under {@code sm/}; keeps the newest two. */
  static final class Storage implements StateMachineStorage {
    private volatile File smDir;
    private volatile FileListSnapshotInfo latest;
    private volatile BlobSpec latestSpec;

    @Override
    public void init(RaftStorage raftStorage) throws IOException {
      smDir = raftStorage.getStorageDir().getStateMachineDir();
      latest = null;
      List<Path> dirs = dirsNewestFirst();
      if (!dirs.isEmpty()) {
        Path dir = dirs.get(0);
        latestSpec = BlobSpec.parse(Files.readString(dir.resolve(SPEC_FILE)));
        latest = describe(dir, latestSpec, termIndexOf(dir));
      }
    }

    @Override
    public FileListSnapshotInfo getLatestSnapshot() {
      return latest;
    }

    @Override
    public void format() {
    }

    synchronized void write(BlobSpec spec, TermIndex termIndex) throws IOException {
      Path dir = smDir.toPath().resolve("blob-" + termIndex.getTerm() + "_" + termIndex.getIndex());
      Path tmp = smDir.toPath().resolve(".tmp-" + dir.getFileName());
      DurableFiles.deleteTree(tmp);
      Files.createDirectories(tmp);
      Path previous = latest == null ? null : latest.getFiles().get(0).getPath().getParent();
      for (int i = 0; i < spec.fileCount(); i++) {
        Path file = tmp.resolve(dataName(i));
        if (previous != null && latestSpec != null && i < latestSpec.fileCount()
            && latestSpec.file(i).equals(spec.file(i))) {
          Files.createLink(file, previous.resolve(dataName(i)));
          Files.copy(MD5FileUtil.getDigestFileForFile(previous.resolve(dataName(i)).toFile()).toPath(),
              MD5FileUtil.getDigestFileForFile(file.toFile()).toPath());
        } else {
          byte[] md5 = spec.write(i, file);
          MD5FileUtil.saveMD5File(file.toFile(), MD5Hash.newInstance(md5));
        }
      }
      Path specFile = tmp.resolve(SPEC_FILE);
      try (OutputStream out = Files.newOutputStream(specFile)) {
        spec.writeText(out);
      }
      MD5FileUtil.computeAndSaveMd5ForFile(specFile.toFile());
      Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
      latestSpec = spec;
      latest = describe(dir, spec, termIndex);
    }

    @Override
    public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) throws IOException {
      List<Path> dirs = dirsNewestFirst();
      for (Path old : dirs.subList(Math.min(2, dirs.size()), dirs.size())) {
        DurableFiles.deleteTree(old);
      }
    }

    private static FileListSnapshotInfo describe(Path dir, BlobSpec spec, TermIndex termIndex) throws IOException {
      List<FileInfo> files = new ArrayList<>();
      for (int i = 0; i < spec.fileCount(); i++) {
        File f = dir.resolve(dataName(i)).toFile();
        files.add(new FileInfo(f.toPath(), MD5FileUtil.readStoredMd5ForFile(f)));
      }
      File s = dir.resolve(SPEC_FILE).toFile();
      files.add(new FileInfo(s.toPath(), MD5FileUtil.readStoredMd5ForFile(s)));
      return new FileListSnapshotInfo(files, termIndex);
    }

    private List<Path> dirsNewestFirst() throws IOException {
      if (smDir == null || !smDir.isDirectory()) {
        return List.of();
      }
      try (Stream<Path> children = Files.list(smDir.toPath())) {
        return children.filter(p -> DIR.matcher(p.getFileName().toString()).matches())
            .filter(p -> Files.exists(p.resolve(SPEC_FILE)))
            .sorted(Comparator.comparingLong((Path p) -> termIndexOf(p).getIndex()).reversed())
            .toList();
      }
    }

    private static TermIndex termIndexOf(Path dir) {
      Matcher m = DIR.matcher(dir.getFileName().toString());
      if (!m.matches()) {
        throw new IllegalArgumentException(dir + " is not a snapshot directory");
      }
      return TermIndex.valueOf(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
    }
  }

  static String dataName(int i) {
    return String.format("data-%02d", i);
  }
}
