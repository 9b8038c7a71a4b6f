package dev.ratisoffload.refkv;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.SortedMap;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.AtomicFileOutputStream;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A key-value state machine whose snapshot is one file, {@code sm/snapshot.<term>_<index>}, with
 * an {@code .md5} sidecar: the layout of Ratis's {@link SimpleStateMachineStorage}.
 *
 * <p>Because the term and index are in the file name, a group directory restored with only
 * {@code current/raft-meta}, {@code current/raft-meta.conf} and this file restarts (with
 * {@code RECOVER}) at exactly the snapshot's index.
 */
public class KvStateMachine extends AbstractKvStateMachine {
  private static final Logger LOGGER = LoggerFactory.getLogger(KvStateMachine.class);

  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  private volatile File stateMachineDir;

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
    stateMachineDir = raftStorage.getStorageDir().getStateMachineDir();
    super.initialize(server, groupId, raftStorage);
  }

  @Override
  public SimpleStateMachineStorage getStateMachineStorage() {
    return storage;
  }

  @Override
  protected void writeSnapshot(SortedMap<String, byte[]> entries, TermIndex termIndex) throws IOException {
    final File file = storage.getSnapshotFile(termIndex.getTerm(), termIndex.getIndex());
    // Written to a temporary file and renamed on close: a crash never leaves a partial snapshot
    // under a name that Ratis (or a backup) would take for a complete one.
    try (OutputStream out = new BufferedOutputStream(new AtomicFileOutputStream(file))) {
      KvMap.write(entries, out);
    }
    final MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
    storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), termIndex));
    LOGGER.info("{}: took snapshot {} with {} keys", this, file.getName(), entries.size());
  }

  @Override
  protected LoadedSnapshot readLatestSnapshot() throws IOException {
    // loadLatestSnapshot() rescans the directory: after a snapshot installed from the leader the
    // cached "latest" is stale. It also reads the .md5 sidecar when one exists.
    final SingleFileSnapshotInfo info = storage.loadLatestSnapshot();
    if (info == null) {
      failIfSnapshotFilesExist();
      return null;
    }
    final File file = info.getFile().getPath().toFile();
    Md5Check.verify(file, info.getFile().getFileDigest());
    try (InputStream in = new BufferedInputStream(Files.newInputStream(file.toPath()))) {
      return new LoadedSnapshot(info.getTermIndex(), KvMap.read(in));
    } catch (IOException e) {
      throw new IOException("cannot read snapshot " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * SimpleStateMachineStorage answers "no snapshot" (with only a WARN) when it cannot read the
   * newest snapshot's .md5 sidecar. Starting empty would silently drop the snapshot's data, so
   * refuse to start instead.
   */
  private void failIfSnapshotFilesExist() throws IOException {
    final String[] names = stateMachineDir == null ? null : stateMachineDir.list();
    if (names == null) {
      return;
    }
    for (String name : names) {
      if (SimpleStateMachineStorage.SNAPSHOT_REGEX.matcher(name).matches()) {
        throw new IOException("snapshot file " + new File(stateMachineDir, name)
            + " exists but could not be loaded (is its .md5 sidecar malformed?): fix or remove the"
            + " sidecar, or remove the snapshot, before starting this group");
      }
    }
  }
}
