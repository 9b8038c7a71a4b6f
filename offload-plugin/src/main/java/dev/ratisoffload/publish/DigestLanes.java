package dev.ratisoffload.publish;

import dev.ratisoffload.primitives.DaemonThreads;
import dev.ratisoffload.primitives.Hashes;
import java.security.MessageDigest;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The whole-file SHA-256 and MD5 of one publish's files, each computed on a thread of its own, chunk
 * after chunk in order, so that the thread reading the files only reads and finds chunk boundaries.
 */
final class DigestLanes implements AutoCloseable {

  /** How much of a chunk is hashed between two yields of the CPU (see {@link #digestInSlices}). */
  static final int DIGEST_SLICE = 256 * 1024;

  private final ExecutorService shaLane = Executors.newSingleThreadExecutor(DaemonThreads.named("offload-digest-sha256"));
  private final ExecutorService md5Lane = Executors.newSingleThreadExecutor(DaemonThreads.named("offload-digest-md5"));

  /** The digests of the next file; its chunks must be added in order. */
  FileDigests startFile() {
    return new FileDigests();
  }

  /**
   * Adds the chunk to a digest in slices of {@value #DIGEST_SLICE} bytes, yielding the CPU between them:
   * a publish runs beside Raft's threads, and one that wakes meanwhile (a write to append, replicate,
   * apply) then gets the CPU within a slice instead of waiting for the digest of a whole chunk of up to
   * 4 MiB; on an idle CPU the yield returns at once.
   */
  static MessageDigest digestInSlices(MessageDigest digest, byte[] chunk, int length) {
    for (int offset = 0; offset < length; offset += DIGEST_SLICE) {
      digest.update(chunk, offset, Math.min(DIGEST_SLICE, length - offset));
      Thread.yield();
    }
    return digest;
  }

  /** Stops both threads; digests not yet computed are abandoned. */
  @Override
  public void close() {
    shaLane.shutdownNow();
    md5Lane.shutdownNow();
  }

  /** One file's two digests, fed chunk by chunk. */
  final class FileDigests {
    private final MessageDigest sha = Hashes.sha256();
    private final MessageDigest md5 = Hashes.md5();
    private Future<String> shaHex;
    private Future<String> md5Hex;

    /** Adds the chunk's first {@code length} bytes to both digests; runs {@code taken} after each has. */
    void add(byte[] chunk, int length, Runnable taken) {
      addTo(shaLane, sha, chunk, length, taken);
      addTo(md5Lane, md5, chunk, length, taken);
    }

    /** Ends the file: no chunk is added after this. */
    void finish() {
      shaHex = shaLane.submit(() -> Hashes.hex(sha.digest()));
      md5Hex = md5Lane.submit(() -> Hashes.hex(md5.digest()));
    }

    /** The file's SHA-256 (lowercase hex), once {@link #finish finished} and computed. */
    Future<String> sha256() {
      return shaHex;
    }

    /** The file's MD5 (lowercase hex), once {@link #finish finished} and computed. */
    Future<String> md5() {
      return md5Hex;
    }
  }

  private static void addTo(ExecutorService lane, MessageDigest digest, byte[] chunk, int length, Runnable taken) {
    lane.execute(() -> {
      try {
        digestInSlices(digest, chunk, length);
      } finally {
        taken.run();
      }
    });
  }

}
