package dev.ratisoffload.kafka.format;

import java.io.IOException;
import java.io.OutputStream;

/** Unsigned LEB128 varints (as protobuf writes them) and zigzag for signed values. */
final class Varints {

  private Varints() {}

  static int write(OutputStream out, long value) throws IOException {
    int n = 1;
    while ((value & ~0x7FL) != 0) {
      out.write((int) ((value & 0x7F) | 0x80));
      value >>>= 7;
      n++;
    }
    out.write((int) value);
    return n;
  }

  static long zigzag(long value) {
    return (value << 1) ^ (value >> 63);
  }

  static long unzigzag(long encoded) {
    return (encoded >>> 1) ^ -(encoded & 1);
  }
}
