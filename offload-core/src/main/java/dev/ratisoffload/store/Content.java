package dev.ratisoffload.store;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

/**
 * Bytes to store, readable as often as needed: a put may need them again to retry a part or to compare
 * with an object already at the key.
 */
public abstract class Content {

  /** Size in bytes. */
  public abstract long size();

  /** A fresh stream over all the bytes. */
  public abstract InputStream open();

  /**
   * The SHA-256 of these bytes when the writer already knows it (a chunk is named by it): a store may have
   * what it receives checked against it, at no cost to this process. Empty unless {@link #withSha256} set it.
   */
  public Optional<byte[]> sha256() {
    return Optional.empty();
  }

  /** These bytes, declared to have the SHA-256 {@code digest}; a store that checks it refuses other bytes. */
  public Content withSha256(byte[] digest) {
    if (digest.length != 32) {
      throw new IllegalArgumentException("a SHA-256 has 32 bytes, not " + digest.length);
    }
    Content bytes = this;
    byte[] declared = digest.clone();
    return new Content() {
      @Override
      public long size() {
        return bytes.size();
      }

      @Override
      public InputStream open() {
        return bytes.open();
      }

      @Override
      public InputStream open(long offset, long length) {
        return bytes.open(offset, length);
      }

      @Override
      public byte[] toByteArray() {
        return bytes.toByteArray();
      }

      @Override
      public Optional<byte[]> sha256() {
        return Optional.of(declared.clone());
      }
    };
  }

  public static Content of(byte[] bytes) {
    return ofRange(bytes, 0, bytes.length);
  }

  /** The first {@code length} bytes of {@code bytes}, without copying them. */
  public static Content ofRange(byte[] bytes, int offset, int length) {
    if (offset < 0 || length < 0 || offset + length > bytes.length) {
      throw new IndexOutOfBoundsException("range " + offset + "+" + length + " of " + bytes.length);
    }
    return new Content() {
      @Override
      public long size() {
        return length;
      }

      @Override
      public InputStream open() {
        return new ByteArrayInputStream(bytes, offset, length);
      }

      @Override
      public byte[] toByteArray() {
        return offset == 0 && length == bytes.length
            ? bytes
            : Arrays.copyOfRange(bytes, offset, offset + length);
      }
    };
  }

  public static Content of(Path file) {
    final long size;
    try {
      size = Files.size(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    return new Content() {
      @Override
      public long size() {
        return size;
      }

      @Override
      public InputStream open() {
        try {
          return Files.newInputStream(file);
        } catch (IOException e) {
          throw new UncheckedIOException("cannot read " + file, e);
        }
      }
    };
  }

  /** A fresh stream over {@code length} bytes starting at {@code offset}. */
  public InputStream open(long offset, long length) {
    InputStream in = open();
    try {
      in.skipNBytes(offset);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new BoundedInputStream(in, length);
  }

  /** All bytes in memory; only for content known to be small. */
  public byte[] toByteArray() {
    try (InputStream in = open()) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether {@code other} yields exactly these bytes. Closes {@code other}. */
  public boolean sameBytesAs(InputStream other) throws IOException {
    try (InputStream mine = open(); InputStream theirs = other) {
      byte[] a = new byte[64 * 1024];
      byte[] b = new byte[64 * 1024];
      while (true) {
        int n = mine.readNBytes(a, 0, a.length);
        int m = theirs.readNBytes(b, 0, n == 0 ? 1 : n);
        if (n != m) {
          return false;
        }
        if (n == 0) {
          return true;
        }
        if (!Arrays.equals(a, 0, n, b, 0, m)) {
          return false;
        }
      }
    }
  }
}
