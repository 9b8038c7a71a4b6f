package dev.ratisoffload.restore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.primitives.Hashes;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
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
  void raftMetaConfKeepsEveryAddressThePriorityAndTheListeners() throws Exception {
    Manifest.Peer voter = new Manifest.Peer("n1", "127.0.0.1:7001", "127.0.0.1:7101", "127.0.0.1:7201",
        "127.0.0.1:7301", 5, Manifest.Role.FOLLOWER);
    Manifest.Peer plain = new Manifest.Peer("n2", "127.0.0.1:7002");
    Manifest.Peer listener = new Manifest.Peer("n3", "127.0.0.1:7003", "127.0.0.1:7103", null, null, 0,
        Manifest.Role.LISTENER);
    RatisDirectoryWriter.writeCurrent(dir, 7, 5, 300, List.of(voter, plain, listener));

    RaftConfiguration conf = LogProtoUtils.toRaftConfiguration(
        LogEntryProto.parseFrom(Files.readAllBytes(dir.resolve("current/raft-meta.conf"))));
    assertEquals(List.of("n1", "n2"), conf.getCurrentPeers(RaftPeerRole.FOLLOWER).stream()
        .map(p -> p.getId().toString()).sorted().toList());
    assertEquals(List.of("n3"), conf.getCurrentPeers(RaftPeerRole.LISTENER).stream()
        .map(p -> p.getId().toString()).toList());
    RaftPeer n1 = conf.getPeer(RaftPeerId.valueOf("n1"), RaftPeerRole.FOLLOWER);
    assertEquals(List.of("127.0.0.1:7001", "127.0.0.1:7101", "127.0.0.1:7201", "127.0.0.1:7301"),
        List.of(n1.getAddress(), n1.getClientAddress(), n1.getAdminAddress(), n1.getDataStreamAddress()));
    assertEquals(5, n1.getPriority());
    RaftPeer n3 = conf.getPeer(RaftPeerId.valueOf("n3"), RaftPeerRole.LISTENER);
    assertEquals("127.0.0.1:7103", n3.getClientAddress());
    assertEquals(RaftPeerRole.LISTENER, n3.getStartupRole());
    assertEquals(0, conf.getPeer(RaftPeerId.valueOf("n2"), RaftPeerRole.FOLLOWER).getPriority());
  }

  /** A peer read from a format 1 manifest is written exactly as before format 2: id and address. */
  @Test
  void aFormat1PeerIsWrittenAsBefore() {
    byte[] before = LogEntryProto.newBuilder().setTerm(5).setIndex(300).setConfigurationEntry(
        RaftConfigurationProto.newBuilder().addPeers(
            RaftPeer.newBuilder().setId("n1").setAddress("127.0.0.1:7001").build().getRaftPeerProto()))
        .build().toByteArray();

    assertArrayEquals(before, RatisDirectoryWriter.raftMetaConf(5, 300,
        List.of(new Manifest.Peer("n1", "127.0.0.1:7001"))));
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
