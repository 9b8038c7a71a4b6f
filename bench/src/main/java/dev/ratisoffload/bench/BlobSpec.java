package dev.ratisoffload.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * The content of a synthetic snapshot: several files of pseudo-random (incompressible) bytes,
 * described by a few numbers instead of held in memory. Each file is a sequence of 64 KiB blocks; a
 * block's bytes come from a generator seeded by (seed, file, block, version), so the same spec always
 * yields the same bytes, appending keeps every existing byte, and rewriting a region (a new version of
 * its blocks) changes only that region.
 */
final class BlobSpec {

  static final int BLOCK = 64 * 1024;

  private final long seed;
  private final List<FileSpec> files;

  /** One file: its length and the blocks rewritten so far (block to version). */
  static final class FileSpec {
    long length;
    final TreeMap<Long, Integer> versions = new TreeMap<>();

    FileSpec(long length) {
      this.length = length;
    }

    FileSpec copy() {
      FileSpec c = new FileSpec(length);
      c.versions.putAll(versions);
      return c;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof FileSpec f && f.length == length && f.versions.equals(versions);
    }

    @Override
    public int hashCode() {
      return Objects.hash(length, versions);
    }
  }

  private BlobSpec(long seed, List<FileSpec> files) {
    this.seed = seed;
    this.files = files;
  }

  static BlobSpec empty() {
    return new BlobSpec(0, new ArrayList<>());
  }

  static BlobSpec of(int fileCount, long bytesPerFile, long seed) {
    List<FileSpec> files = new ArrayList<>();
    for (int i = 0; i < fileCount; i++) {
      files.add(new FileSpec(bytesPerFile));
    }
    return new BlobSpec(seed, files);
  }

  BlobSpec copy() {
    List<FileSpec> c = new ArrayList<>();
    files.forEach(f -> c.add(f.copy()));
    return new BlobSpec(seed, c);
  }

  int fileCount() {
    return files.size();
  }

  FileSpec file(int i) {
    return files.get(i);
  }

  long totalBytes() {
    return files.stream().mapToLong(f -> f.length).sum();
  }

  void append(int file, long bytes) {
    files.get(file).length += bytes;
  }

  /** Gives every block overlapping [offset, offset + bytes) a new version. */
  void rewrite(int file, long offset, long bytes) {
    FileSpec f = files.get(file);
    for (long b = offset / BLOCK; b * BLOCK < Math.min(f.length, offset + bytes); b++) {
      f.versions.merge(b, 1, Integer::sum);
    }
  }

  /**
   * Applies a command of the state machine: {@code init <files> <bytesPerFile> <seed>},
   * {@code append <file> <bytes>} or {@code rewrite <file> <offset> <bytes>}. Returns the spec that
   * results (this one, or a new one for init).
   */
  BlobSpec apply(String[] words) {
    switch (words[0]) {
      case "init":
        return of(Integer.parseInt(words[1]), Long.parseLong(words[2]), Long.parseLong(words[3]));
      case "append":
        append(Integer.parseInt(words[1]), Long.parseLong(words[2]));
        return this;
      case "rewrite":
        rewrite(Integer.parseInt(words[1]), Long.parseLong(words[2]), Long.parseLong(words[3]));
        return this;
      default:
        throw new IllegalArgumentException("unknown blob command " + words[0]);
    }
  }

  /** Writes file {@code i} and returns its MD5. */
  byte[] write(int i, Path target) throws IOException {
    FileSpec f = files.get(i);
    MessageDigest md5 = md5();
    byte[] block = new byte[BLOCK];
    ByteBuffer buffer = ByteBuffer.allocate(16 * BLOCK);
    try (FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      for (long b = 0; b * BLOCK < f.length; b++) {
        int n = (int) Math.min(BLOCK, f.length - b * BLOCK);
        fill(block, i, b, f.versions.getOrDefault(b, 0));
        md5.update(block, 0, n);
        if (buffer.remaining() < n) {
          buffer.flip();
          while (buffer.hasRemaining()) {
            out.write(buffer);
          }
          buffer.clear();
        }
        buffer.put(block, 0, n);
      }
      buffer.flip();
      while (buffer.hasRemaining()) {
        out.write(buffer);
      }
      out.force(true);
    }
    return md5.digest();
  }

  private static MessageDigest md5() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private void fill(byte[] block, int file, long index, int version) {
    long s = seed * 0x9E3779B97F4A7C15L + file * 0xC2B2AE3D27D4EB4FL + index * 0x165667B19E3779F9L
        + version * 0x27D4EB2F165667C5L;
    SplittableRandom random = new SplittableRandom(s);
    for (int p = 0; p < block.length; p += 8) {
      long v = random.nextLong();
      for (int k = 0; k < 8; k++) {
        block[p + k] = (byte) (v >>> (8 * k));
      }
    }
  }

  /** The spec as text, saved in each snapshot so a restarted state machine knows its content. */
  void writeText(OutputStream out) throws IOException {
    StringBuilder s = new StringBuilder("blob-spec 1\nseed " + seed + "\n");
    for (FileSpec f : files) {
      s.append("file ").append(f.length);
      f.versions.forEach((b, v) -> s.append(' ').append(b).append(':').append(v));
      s.append('\n');
    }
    out.write(s.toString().getBytes(StandardCharsets.UTF_8));
  }

  static BlobSpec parse(String text) {
    String[] lines = text.split("\n");
    if (lines.length < 2 || !lines[0].equals("blob-spec 1") || !lines[1].startsWith("seed ")) {
      throw new IllegalArgumentException("not a blob spec");
    }
    long seed = Long.parseLong(lines[1].substring(5));
    List<FileSpec> files = new ArrayList<>();
    for (int i = 2; i < lines.length; i++) {
      String[] w = lines[i].split(" ");
      FileSpec f = new FileSpec(Long.parseLong(w[1]));
      for (int k = 2; k < w.length; k++) {
        String[] bv = w[k].split(":");
        f.versions.put(Long.parseLong(bv[0]), Integer.parseInt(bv[1]));
      }
      files.add(f);
    }
    return new BlobSpec(seed, files);
  }
}
