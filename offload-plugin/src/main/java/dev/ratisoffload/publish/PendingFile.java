package dev.ratisoffload.publish;

import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.primitives.Futures;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;

/** A file being published: its chunks' uploads and its digests, until they make its manifest entry. */
final class PendingFile {
  private final SnapshotSource.PinnedFile file;
  private final DigestLanes.FileDigests digests;
  /** Each chunk's SHA-256 once stored; null for an upload skipped because the fence had closed. */
  private final List<Future<String>> chunks = new ArrayList<>();
  private final List<Integer> sizes = new ArrayList<>();
  private long size;

  PendingFile(SnapshotSource.PinnedFile file, DigestLanes.FileDigests digests) {
    this.file = file;
    this.digests = digests;
  }

  DigestLanes.FileDigests digests() {
    return digests;
  }

  /** The next chunk: {@code upload} yields its SHA-256 once stored. */
  void addChunk(Future<String> upload, int length) {
    chunks.add(upload);
    sizes.add(length);
    size += length;
  }

  /**
   * The manifest's entry, once every chunk is stored (no upload skipped: the publish stops before
   * this when one was); checks the MD5 Ratis recorded.
   */
  Manifest.FileEntry entry() throws IOException {
    String md5 = Futures.await(digests.md5(), "hashing");
    if (file.expectedMd5() != null && !file.expectedMd5().equals(md5)) {
      throw new IOException("snapshot file " + file.path() + " has MD5 " + md5
          + " but Ratis recorded " + file.expectedMd5()
          + ": the local snapshot is corrupt; it was not published");
    }
    List<Manifest.ChunkRef> refs = new ArrayList<>();
    for (int i = 0; i < chunks.size(); i++) {
      String chunkSha = Futures.await(chunks.get(i), "uploading chunks");
      if (chunkSha == null) {
        throw new IllegalStateException("chunk " + i + " of " + file.path() + " was not uploaded");
      }
      refs.add(new Manifest.ChunkRef(chunkSha, sizes.get(i)));
    }
    return new Manifest.FileEntry(file.path(), size, Futures.await(digests.sha256(), "hashing"),
        file.expectedMd5() == null ? null : md5, refs);
  }
}
