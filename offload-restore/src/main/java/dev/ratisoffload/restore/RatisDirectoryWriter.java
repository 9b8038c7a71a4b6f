package dev.ratisoffload.restore;

import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.io.DurableFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftPeer;

/**
 * Writes the files Ratis needs, besides the snapshot, to start a group from a restored snapshot with
 * {@code StartupOption.RECOVER}. Without {@code current/raft-meta} Ratis takes the directory for
 * unformatted and deletes the snapshot; with a term below the snapshot's, the first leader's entries
 * would be older than the snapshot and no peer could apply them.
 */
final class RatisDirectoryWriter {

  public static final String CURRENT_DIR = "current";
  public static final String RAFT_META = "raft-meta";
  public static final String RAFT_META_CONF = "raft-meta.conf";
  /** Ratis's MD5 sidecar suffix (MD5FileUtil). */
  public static final String MD5_SUFFIX = ".md5";

  private RatisDirectoryWriter() {}

  /**
   * Writes {@code current/raft-meta} and {@code current/raft-meta.conf} into a group directory.
   *
   * @param term the term to start in; at least the snapshot's
   * @param snapshotTerm the snapshot's term, recorded as the configuration entry's term
   * @param snapshotIndex the snapshot's index, recorded as the configuration entry's index so that
   *     every entry a new leader appends comes after it
   */
  public static void writeCurrent(Path groupDir, long term, long snapshotTerm, long snapshotIndex,
      List<Manifest.Peer> peers) throws IOException {
    if (term < snapshotTerm) {
      throw new IllegalArgumentException("term " + term + " is below the snapshot's term " + snapshotTerm);
    }
    Path current = Files.createDirectories(groupDir.resolve(CURRENT_DIR));
    DurableFiles.writeNew(current.resolve(RAFT_META), raftMeta(term));
    DurableFiles.writeNew(current.resolve(RAFT_META_CONF), raftMetaConf(snapshotTerm, snapshotIndex, peers));
    DurableFiles.syncDirectory(current);
  }

  /** Ratis's metadata file: Java properties {@code term} and {@code votedFor} (empty: no vote). */
  static byte[] raftMeta(long term) throws IOException {
    Properties properties = new Properties();
    properties.setProperty("term", Long.toString(term));
    properties.setProperty("votedFor", "");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (Writer writer = new OutputStreamWriter(bytes, StandardCharsets.UTF_8)) {
      properties.store(writer, "restored by offload");
    }
    return bytes.toByteArray();
  }

  /**
   * Ratis's configuration file: one serialized {@link LogEntryProto} holding a configuration entry,
   * as {@code RaftStorageImpl.writeRaftConfiguration} writes it. Voting peers go into its peers, listeners
   * into its listeners, each with every address, its priority and its start-up role.
   */
  public static byte[] raftMetaConf(long term, long index, List<Manifest.Peer> peers) {
    RaftConfigurationProto.Builder conf = RaftConfigurationProto.newBuilder();
    for (Manifest.Peer peer : peers) {
      boolean listener = peer.role() == Manifest.Role.LISTENER;
      RaftPeerProto proto = RaftPeer.newBuilder().setId(peer.id()).setAddress(peer.address())
          .setClientAddress(peer.clientAddress()).setAdminAddress(peer.adminAddress())
          .setDataStreamAddress(peer.dataStreamAddress()).setPriority(peer.priority())
          .setStartupRole(listener ? RaftPeerRole.LISTENER : RaftPeerRole.FOLLOWER).build().getRaftPeerProto();
      if (listener) {
        conf.addListeners(proto);
      } else {
        conf.addPeers(proto);
      }
    }
    return LogEntryProto.newBuilder().setTerm(term).setIndex(index).setConfigurationEntry(conf)
        .build().toByteArray();
  }

  /** The sidecar Ratis keeps beside a snapshot file, in MD5FileUtil's format. */
  public static void writeMd5Sidecar(Path file, String md5Hex) throws IOException {
    String line = md5Hex + " *" + file.getFileName() + "\n";
    DurableFiles.writeNew(sidecarOf(file), line.getBytes(StandardCharsets.UTF_8));
  }

  static Path sidecarOf(Path file) {
    return file.resolveSibling(file.getFileName() + MD5_SUFFIX);
  }
}
