package dev.ratisoffload.format;

import java.time.Instant;
import java.util.List;

/**
 * What a generation holds: one snapshot of one Raft group, the configuration needed to start the group
 * from it, and where every byte of every snapshot file is stored. See docs/design.md, "Manifest".
 *
 * @param format the manifest format version: {@link #FORMAT_VERSION}, or {@link #FORMAT_1} when read
 * @param cluster the cluster id the publisher was configured with
 * @param group the Raft group's UUID, lowercase
 * @param term the term of the snapshot's last included log entry
 * @param index the index of the snapshot's last included log entry
 * @param peers the Raft configuration at publication: every peer, voting or listener, with all that
 *     Ratis keeps for it (format 1 kept only ids and addresses; read, its peers are voting followers)
 * @param publisher the peer that published, leader of the group at {@code leaderTerm}
 * @param createdAt when the generation was published
 * @param toolVersion the version of the software that wrote the manifest
 * @param files the snapshot's files, paths relative to the group's directory
 */
public record Manifest(
    int format,
    String cluster,
    String group,
    long term,
    long index,
    List<Peer> peers,
    Publisher publisher,
    Instant createdAt,
    String toolVersion,
    List<FileEntry> files) {

  /** The format this version writes: format 1 plus each peer's other addresses, priority and role. */
  public static final int FORMAT_VERSION = 2;
  /** The first format, still read: peers with an id and an address only. */
  public static final int FORMAT_1 = 1;

  public Manifest {
    peers = List.copyOf(peers);
    files = List.copyOf(files);
  }

  /**
   * A member of the Raft configuration, with every field Ratis's {@code RaftPeer} keeps.
   *
   * @param id the peer id ({@code RaftPeerId})
   * @param address the server (Raft RPC) address, host:port
   * @param clientAddress the address clients use; null when Ratis keeps none
   * @param adminAddress the address admin requests use; null when Ratis keeps none
   * @param dataStreamAddress the data-stream address; null when Ratis keeps none
   * @param priority the leader-election priority, 0 or more (Ratis's default 0)
   * @param role whether the peer votes or only listens
   */
  public record Peer(String id, String address, String clientAddress, String adminAddress,
      String dataStreamAddress, int priority, Role role) {

    /** A voting peer known only by id and address, as format 1 kept it. */
    public Peer(String id, String address) {
      this(id, address, null, null, null, 0, Role.FOLLOWER);
    }
  }

  /** A peer's part in its group: voting (Ratis's FOLLOWER start-up role) or non-voting listener. */
  public enum Role { FOLLOWER, LISTENER }

  /** Who published the generation, and in which term it was leader. */
  public record Publisher(String peer, long leaderTerm) {}

  /**
   * One snapshot file.
   *
   * @param path relative to the group's directory, '/'-separated, e.g. {@code sm/snapshot.3_300}
   * @param md5 the digest Ratis keeps beside the file ({@code .md5} sidecar); null when it keeps none
   */
  public record FileEntry(String path, long size, String sha256, String md5, List<ChunkRef> chunks) {
    public FileEntry {
      chunks = List.copyOf(chunks);
    }
  }

  /** A content-addressed chunk: its key is derived from its SHA-256. */
  public record ChunkRef(String sha256, int size) {}

  /** The bytes of all files together. */
  public long totalBytes() {
    return files.stream().mapToLong(FileEntry::size).sum();
  }
}
