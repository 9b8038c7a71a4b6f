package dev.ratisoffload.store;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Bytes to store, readable as often as needed: a put may need them again to retry a part or to compare
 * with an object already at the key.
 */
public abstract class Content {

  /** Size in bytes. */
  public abstract long size();

  /** A fresh stream over all the bytes. */
  public abstract InputStream open();

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
