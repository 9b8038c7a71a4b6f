package dev.ratisoffload.restore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.format.Hashes;
import dev.ratisoffload.format.Manifest;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.raftlog.LogProtoUtils;
import org.apache.ratis.util.MD5FileUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The files are read back with Ratis's own code, exactly as a starting server reads them. */
class RatisDirectoryWriterTest {

  @TempDir
  Path dir;

  @Test
  void raftMetaConfIsTheConfigurationEntryRatisReads() throws Exception {
    List<Manifest.Peer> peers = List.of(new Manifest.Peer("n1", "127.0.0.1:7001"),
        new Manifest.Peer("n2", "127.0.0.1:7002"), new Manifest.Peer("n3", "127.0.0.1:7003"));
    RatisDirectoryWriter.writeCurrent(dir, 7, 5, 300, peers);

    byte[] bytes = Files.readAllBytes(dir.resolve("current/raft-meta.conf"));
    LogEntryProto entry = LogEntryProto.newBuilder().mergeFrom(bytes).build();
    assertEquals(5, entry.getTerm());
    assertEquals(300, entry.getIndex());
    RaftConfiguration conf = LogProtoUtils.toRaftConfiguration(entry);
    assertEquals(300, conf.getLogEntryIndex());
    assertEquals(3, conf.getCurrentPeers().size());
    for (Manifest.Peer peer : peers) {
      RaftPeer read = conf.getPeer(RaftPeerId.valueOf(peer.id()));
      assertEquals(peer.address(), read.getAddress());
    }
    assertTrue(conf.getPreviousPeers().isEmpty(), "not a transitional configuration");
  }

  @Test
  void raftMetaHoldsTheTermAndNoVote() throws Exception {
    RatisDirectoryWriter.writeCurrent(dir, 9, 9, 10, List.of(new Manifest.Peer("a", "h:1")));
    Properties properties = new Properties();
    try (InputStream in = Files.newInputStream(dir.resolve("current/raft-meta"))) {
      properties.load(in);
    }
    assertEquals("9", properties.getProperty("term"));
    assertEquals("", properties.getProperty("votedFor"));
    assertEquals(RaftPeerId.valueOf(""), RaftPeerId.valueOf(properties.getProperty("votedFor")));
  }

  @Test
  void refusesATermBelowTheSnapshots() {
    assertThrows(IllegalArgumentException.class,
        () -> RatisDirectoryWriter.writeCurrent(dir, 2, 3, 10, List.of(new Manifest.Peer("a", "h:1"))));
  }

  @Test
  void md5SidecarIsWhatMd5FileUtilReads() throws Exception {
    byte[] content = "snapshot bytes".getBytes(StandardCharsets.UTF_8);
    Path file = Files.write(dir.resolve("snapshot.3_300"), content);
    String md5 = Hashes.hex(Hashes.md5().digest(content));
    RatisDirectoryWriter.writeMd5Sidecar(file, md5);

    MD5Hash stored = MD5FileUtil.readStoredMd5ForFile(file.toFile());
    assertEquals(md5, stored.toString());
    MD5FileUtil.verifySavedMD5(file.toFile(), MD5FileUtil.computeMd5ForFile(file.toFile()));
  }
}
