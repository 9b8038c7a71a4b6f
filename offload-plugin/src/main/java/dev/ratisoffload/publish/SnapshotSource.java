package dev.ratisoffload.publish;

import dev.ratisoffload.format.Manifest;
import java.nio.file.Path;
import java.util.List;

/**
 * A snapshot ready to publish: its files already pinned (so nothing can delete or change them while
 * they are read) and what the manifest must say about it.
 *
 * @param cluster the cluster id
 * @param group the group's UUID
 * @param term the snapshot's term
 * @param index the snapshot's index
 * @param peers the Raft configuration
 * @param publisher the publishing peer and its leader term
 * @param files the pinned files
 */
public record SnapshotSource(
    String cluster,
    String group,
    long term,
    long index,
    List<Manifest.Peer> peers,
    Manifest.Publisher publisher,
    List<PinnedFile> files) {

  /**
   * A pinned snapshot file.
   *
   * @param path the path recorded in the manifest, relative to the group directory
   * @param pinned where to read the bytes
   * @param expectedMd5 the MD5 Ratis recorded for the file (lowercase hex), or null if it keeps none
   */
  public record PinnedFile(String path, Path pinned, String expectedMd5) {}
}
