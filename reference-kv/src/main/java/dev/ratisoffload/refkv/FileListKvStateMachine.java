package dev.ratisoffload.refkv;

import java.io.IOException;
import java.util.SortedMap;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A key-value state machine whose snapshot is several files described by a
 * {@link FileListSnapshotInfo}: the map split into shards plus an index file, all in
 * {@code sm/snapshot-<term>_<index>/} (see {@link ShardedSnapshotStorage}).
 *
 * <p>It exists to show that snapshot offload handles multi-file snapshots in subdirectories, not
 * only Ratis's single-file layout.
 */
public class FileListKvStateMachine extends AbstractKvStateMachine {
  private static final Logger LOGGER = LoggerFactory.getLogger(FileListKvStateMachine.class);

  public static final int DEFAULT_SHARDS = 4;

  private final ShardedSnapshotStorage storage;

  public FileListKvStateMachine() {
    this(DEFAULT_SHARDS);
  }

  public FileListKvStateMachine(int shards) {
    this.storage = new ShardedSnapshotStorage(shards);
  }

  @Override
  public ShardedSnapshotStorage getStateMachineStorage() {
    return storage;
  }

  @Override
  protected void writeSnapshot(SortedMap<String, byte[]> entries, TermIndex termIndex) throws IOException {
    final FileListSnapshotInfo info = storage.write(entries, termIndex);
    LOGGER.info("{}: took snapshot {} ({} files) with {} keys", this, termIndex, info.getFiles().size(),
        entries.size());
  }

  @Override
  protected LoadedSnapshot readLatestSnapshot() throws IOException {
    final FileListSnapshotInfo info = storage.loadLatestSnapshot();
    return info == null ? null : new LoadedSnapshot(info.getTermIndex(), storage.read(info));
  }
}
