package dev.ratisoffload.refkv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.server.storage.RaftStorageDirectory;
import org.apache.ratis.server.storage.RaftStorageMetadataFile;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The multi-file snapshot layout on its own, without a Raft server. */
class ShardedSnapshotStorageTest {
  @TempDir
  Path groupDir;

  private final ShardedSnapshotStorage storage = new ShardedSnapshotStorage(3);
  private Path sm;

  @BeforeEach
  void init() throws IOException {
    sm = Files.createDirectories(groupDir.resolve("sm"));
    storage.init(storageAt(groupDir.toFile()));
  }

  private static SortedMap<String, byte[]> entries(int n) {
    final SortedMap<String, byte[]> entries = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      entries.put("k" + i, ("v" + i).getBytes(StandardCharsets.UTF_8));
    }
    return entries;
  }

  @Test
  void writesShardsAndIndexThenReadsThemBack() throws IOException {
    final FileListSnapshotInfo info = storage.write(entries(50), TermIndex.valueOf(2, 40));
    assertEquals(4, info.getFiles().size(), "3 shards and the index file");
    assertTrue(Files.isRegularFile(sm.resolve("snapshot-2_40/index")));
    assertTrue(Files.isRegularFile(sm.resolve("snapshot-2_40/shard-2.md5")));

    final FileListSnapshotInfo loaded = storage.loadLatestSnapshot();
    assertEquals(TermIndex.valueOf(2, 40), loaded.getTermIndex());
    final SortedMap<String, byte[]> back = storage.read(loaded);
    assertEquals(50, back.size());
    assertArrayEquals("v7".getBytes(StandardCharsets.UTF_8), back.get("k7"));
  }

  @Test
  void newestCompleteDirectoryWinsAndIncompleteOnesAreSkipped() throws IOException {
    storage.write(entries(5), TermIndex.valueOf(1, 10));
    storage.write(entries(6), TermIndex.valueOf(1, 20));
    Files.createDirectories(sm.resolve("snapshot-1_30")); // e.g. a partial copy: no index file
    assertEquals(20, storage.loadLatestSnapshot().getIndex());
  }

  @Test
  void cleanupKeepsTheNewestAndRemovesLeftovers() throws IOException {
    storage.write(entries(1), TermIndex.valueOf(1, 10));
    storage.write(entries(2), TermIndex.valueOf(1, 20));
    storage.write(entries(3), TermIndex.valueOf(1, 30));
    Files.createDirectories(sm.resolve(".tmp-snapshot-1_40"));

    storage.cleanupOldSnapshots(new SnapshotRetentionPolicy() {
      @Override
      public int getNumSnapshotsRetained() {
        return 2;
      }
    });
    assertFalse(Files.exists(sm.resolve("snapshot-1_10")));
    assertTrue(Files.exists(sm.resolve("snapshot-1_20")));
    assertTrue(Files.exists(sm.resolve("snapshot-1_30")));
    assertFalse(Files.exists(sm.resolve(".tmp-snapshot-1_40")));
  }

  @Test
  void corruptShardIsDetected() throws IOException {
    storage.write(entries(20), TermIndex.valueOf(1, 10));
    final Path shard = sm.resolve("snapshot-1_10/shard-0");
    final byte[] bytes = Files.readAllBytes(shard);
    bytes[bytes.length - 1] ^= 1;
    Files.write(shard, bytes);
    final IOException e = assertThrows(IOException.class, () -> storage.read(storage.loadLatestSnapshot()));
    assertTrue(e.getMessage().contains("does not match its .md5"), e.getMessage());
  }

  /** Only the state machine directory is used by the storage. */
  private static RaftStorage storageAt(File root) {
    final RaftStorageDirectory dir = new RaftStorageDirectory() {
      @Override
      public File getRoot() {
        return root;
      }

      @Override
      public boolean isHealthy() {
        return true;
      }
    };
    return new RaftStorage() {
      @Override
      public void initialize() {
      }

      @Override
      public RaftStorageDirectory getStorageDir() {
        return dir;
      }

      @Override
      public RaftStorageMetadataFile getMetadataFile() {
        throw new UnsupportedOperationException();
      }

      @Override
      public RaftServerConfigKeys.Log.CorruptionPolicy getLogCorruptionPolicy() {
        throw new UnsupportedOperationException();
      }

      @Override
      public void close() {
      }
    };
  }
}
