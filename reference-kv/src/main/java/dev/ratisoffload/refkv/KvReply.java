package dev.ratisoffload.refkv;

import java.nio.ByteBuffer;
import java.util.Optional;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * Encodes and decodes the replies of {@link KvCommand}s.
 *
 * <p>GET: one byte 0 (absent) or 1 followed by the value. PUT and DELETE: one byte, 1 when the
 * key existed before. COUNT: an 8-byte big-endian count.
 */
final class KvReply {
  private static final ByteString FALSE = ByteString.copyFrom(new byte[] {0});
  private static final ByteString TRUE = ByteString.copyFrom(new byte[] {1});

  private KvReply() {
  }

  static ByteString value(byte[] valueOrNull) {
    return valueOrNull == null ? FALSE : TRUE.concat(ByteString.copyFrom(valueOrNull));
  }

  static Optional<byte[]> parseValue(ByteString reply) {
    requireNonEmpty(reply);
    return reply.byteAt(0) == 0 ? Optional.empty() : Optional.of(reply.substring(1).toByteArray());
  }

  static ByteString flag(boolean flag) {
    return flag ? TRUE : FALSE;
  }

  static boolean parseFlag(ByteString reply) {
    requireNonEmpty(reply);
    return reply.byteAt(0) != 0;
  }

  static ByteString count(long count) {
    return ByteString.copyFrom(ByteBuffer.allocate(Long.BYTES).putLong(0, count));
  }

  static long parseCount(ByteString reply) {
    if (reply.size() != Long.BYTES) {
      throw new IllegalStateException("malformed COUNT reply of " + reply.size() + " bytes");
    }
    return reply.asReadOnlyByteBuffer().getLong();
  }

  private static void requireNonEmpty(ByteString reply) {
    if (reply.isEmpty()) {
      throw new IllegalStateException("empty reply from the key-value state machine");
    }
  }
}
