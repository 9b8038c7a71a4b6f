package dev.ratisoffload.format;

import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.primitives.Hashes;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectNotFoundException;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreException;
import dev.ratisoffload.store.StoreUnavailableException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Reads generations back from a store and proves them intact: the manifest's own hash and rules, that
 * it agrees with the key it was found at, and every chunk's and file's size and hashes.
 */
public final class GenerationReader {

  private final ObjectStore store;

  public GenerationReader(ObjectStore store) {
    this.store = store;
  }

  /** Every generation under a prefix (see {@link Layout#manifestPrefix}), by cluster, group, index. */
  public List<StoredGeneration> list(String manifestPrefix) {
    List<StoredGeneration> generations = new ArrayList<>();
    for (ObjectInfo object : store.list(manifestPrefix)) {
      Layout.parseManifestKey(object.key())
          .ifPresent(id -> generations.add(new StoredGeneration(id, object)));
    }
    generations.sort(Comparator.comparing((StoredGeneration g) -> g.id().cluster())
        .thenComparing(g -> g.id().group())
        .thenComparingLong(g -> g.id().index())
        .thenComparingLong(g -> g.id().term()));
    return generations;
  }

  /** The newest generation of a group, if any. */
  public Optional<StoredGeneration> newest(String cluster, String group) {
    List<StoredGeneration> all = list(Layout.manifestPrefix(cluster, group));
    return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
  }

  /**
   * Reads and checks a manifest: its hash and rules, and that its cluster, group, term and index are
   * the ones its key names.
   */
  public Manifest readManifest(GenerationId id) {
    String key = id.manifestKey();
    byte[] bytes;
    try (InputStream in = store.get(key)) {
      bytes = in.readNBytes(ManifestCodec.MAX_MANIFEST_BYTES + 1);
    } catch (IOException e) {
      throw new StoreUnavailableException("cannot read " + key + " from " + store.describe() + ": " + e, e);
    }
    Manifest manifest = ManifestCodec.decode(bytes, key);
    if (!GenerationId.of(manifest).equals(id)) {
      throw new CorruptManifestException(key, "it describes cluster " + manifest.cluster() + " group "
          + manifest.group() + " index " + manifest.index() + " term " + manifest.term()
          + ", not what its key names");
    }
    return manifest;
  }

  /**
   * Streams one file's bytes into {@code out}, verifying each chunk before writing it and the whole
   * file's SHA-256 and MD5 at the end.
   *
   * @throws IntegrityException naming the chunk or file that is missing or wrong
   */
  public void readFile(Manifest manifest, Manifest.FileEntry file, OutputStream out) throws IOException {
    MessageDigest fileSha = Hashes.sha256();
    MessageDigest fileMd5 = Hashes.md5();
    for (Manifest.ChunkRef chunk : file.chunks()) {
      byte[] bytes = readChunk(manifest, file, chunk);
      fileSha.update(bytes);
      fileMd5.update(bytes);
      out.write(bytes);
    }
    checkFile(manifest, file, Hashes.hex(fileSha.digest()), Hashes.hex(fileMd5.digest()));
  }

  /** Checks a whole file's digests (hex) against the manifest; the MD5 only when Ratis recorded one. */
  private static void checkFile(Manifest manifest, Manifest.FileEntry file, String sha256, String md5) {
    checkFileSha256(manifest, file, sha256);
    if (file.md5() != null && !md5.equals(file.md5())) {
      throw new IntegrityException("file " + file.path() + " of " + describe(manifest) + " has MD5 "
          + md5 + ", the manifest says " + file.md5());
    }
  }

  /**
   * Checks a whole file's SHA-256 (hex) against the manifest. Enough to prove its bytes are the ones
   * published, and with them its MD5, which the publish checked against the one Ratis recorded.
   */
  private static void checkFileSha256(Manifest manifest, Manifest.FileEntry file, String sha256) {
    if (!sha256.equals(file.sha256())) {
      throw new IntegrityException("file " + file.path() + " of " + describe(manifest) + " has SHA-256 "
          + sha256 + ", the manifest says " + file.sha256());
    }
  }

  /**
   * The error for a file whose bytes, as read, did not hash to the SHA-256 its manifest names: its
   * chunks are read again, each checked against its own SHA-256, so that the error names the damaged
   * object.
   *
   * @param sha256 what the bytes as first read hashed to (hex)
   * @param into an array at least as large as the file's largest chunk
   * @return an {@link IntegrityException} naming the damaged chunk, or saying that intact chunks do not
   *     rebuild the file; a {@link StoreUnavailableException} when the chunks read again do rebuild it
   *     (the first read's bytes changed on the way)
   */
  public StoreException fileMismatch(Manifest manifest, Manifest.FileEntry file, String sha256, byte[] into) {
    MessageDigest again = Hashes.sha256();
    try {
      for (Manifest.ChunkRef chunk : file.chunks()) {
        readChunk(manifest, file, chunk, into);
        again.update(into, 0, chunk.size());
      }
    } catch (IntegrityException damaged) {
      return damaged;
    }
    String found = "file " + file.path() + " of " + describe(manifest) + " had SHA-256 " + sha256
        + " as read, the manifest says " + file.sha256();
    if (Hashes.hex(again.digest()).equals(file.sha256())) {
      return new StoreUnavailableException(found + "; read again, every chunk and the whole file match: the"
          + " bytes changed on the way from " + store.describe() + " or in this process's memory. Try again", null);
    }
    return new IntegrityException(found + ", though every chunk of it has the SHA-256 the manifest names:"
        + " the manifest's chunk list does not rebuild the file");
  }

  /** Reads one chunk and checks its size and SHA-256. */
  public byte[] readChunk(Manifest manifest, Manifest.FileEntry file, Manifest.ChunkRef chunk) {
    byte[] bytes = new byte[chunk.size()]; // at most ChunkingPolicy.LIMIT: the manifest was checked
    readChunk(manifest, file, chunk, bytes);
    return bytes;
  }

  /**
   * Reads one chunk into the first {@code chunk.size()} bytes of {@code into} and checks its size and
   * SHA-256; for a caller that reuses arrays.
   */
  public void readChunk(Manifest manifest, Manifest.FileEntry file, Manifest.ChunkRef chunk, byte[] into) {
    fetchChunk(manifest, file, chunk, into);
    String sha = Hashes.sha256Hex(into, 0, chunk.size());
    if (!sha.equals(chunk.sha256())) {
      throw new IntegrityException("chunk " + chunkKey(manifest, chunk) + " of file " + file.path() + " in "
          + describe(manifest) + " has SHA-256 " + sha + ": its bytes were changed");
    }
  }

  /**
   * Reads one chunk into the first {@code chunk.size()} bytes of {@code into} and checks its size, not
   * its SHA-256: for a caller that proves the bytes otherwise (the whole file's SHA-256), and calls
   * {@link #readChunk} to name the damaged chunk when that fails.
   */
  public void fetchChunk(Manifest manifest, Manifest.FileEntry file, Manifest.ChunkRef chunk, byte[] into) {
    String key = chunkKey(manifest, chunk);
    if (into.length < chunk.size()) {
      throw new IllegalArgumentException(into.length + " bytes cannot hold a chunk of " + chunk.size());
    }
    int read;
    boolean longer;
    try (InputStream in = store.get(key)) {
      // Straight into the array: readNBytes(n) would gather 8 KiB pieces and copy.
      read = in.readNBytes(into, 0, chunk.size());
      longer = read == chunk.size() && in.read() != -1;
    } catch (ObjectNotFoundException e) {
      throw new IntegrityException("chunk " + key + " of file " + file.path() + " in "
          + describe(manifest) + " is missing");
    } catch (IOException e) {
      throw new StoreUnavailableException("cannot read " + key + " from " + store.describe() + ": " + e, e);
    }
    if (read != chunk.size() || longer) {
      throw new IntegrityException("chunk " + key + " of file " + file.path() + " in " + describe(manifest)
          + " has " + (longer ? "more than " : "") + read + " bytes, the manifest says " + chunk.size());
    }
  }

  private static String chunkKey(Manifest manifest, Manifest.ChunkRef chunk) {
    return Layout.chunkKey(manifest.cluster(), manifest.group(), chunk.sha256());
  }

  /** Reads the manifest and every byte it names, verifying all; returns the manifest. */
  public Manifest verify(GenerationId id) {
    Manifest manifest = readManifest(id);
    for (Manifest.FileEntry file : manifest.files()) {
      try {
        readFile(manifest, file, OutputStream.nullOutputStream());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return manifest;
  }

  static String describe(Manifest m) {
    return "generation " + m.index() + " (term " + m.term() + ") of group " + m.group() + " in cluster "
        + m.cluster();
  }

  /** A generation as a listing sees it: its id and its manifest object. */
  public record StoredGeneration(GenerationId id, ObjectInfo manifestObject) {}

}
