package dev.ratisoffload.refkv;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * One request to the key-value store, encoded as the bytes of a Ratis {@link Message}.
 *
 * <p>Layout: one op byte, then for keyed ops a length-prefixed UTF-8 key, then for PUT a
 * length-prefixed value. A binary layout keeps arbitrary values (not just text) intact.
 */
public final class KvCommand {

  /** The operations; PUT and DELETE go through the log, GET and COUNT are queries. */
  public enum Op {
    PUT(1, true), DELETE(2, true), GET(3, false), COUNT(4, false);

    private final byte code;
    private final boolean write;

    Op(int code, boolean write) {
      this.code = (byte) code;
      this.write = write;
    }

    /** True when the op changes state and must be replicated through the Raft log. */
    public boolean isWrite() {
      return write;
    }

    static Op fromCode(byte code) {
      for (Op op : values()) {
        if (op.code == code) {
          return op;
        }
      }
      throw new IllegalArgumentException("unknown key-value op code " + code);
    }
  }

  private final Op op;
  private final String key;
  private final byte[] value;

  private KvCommand(Op op, String key, byte[] value) {
    this.op = op;
    this.key = key;
    this.value = value;
  }

  public static KvCommand put(String key, byte[] value) {
    return new KvCommand(Op.PUT, Objects.requireNonNull(key, "key"), value.clone());
  }

  public static KvCommand delete(String key) {
    return new KvCommand(Op.DELETE, Objects.requireNonNull(key, "key"), null);
  }

  public static KvCommand get(String key) {
    return new KvCommand(Op.GET, Objects.requireNonNull(key, "key"), null);
  }

  public static KvCommand count() {
    return new KvCommand(Op.COUNT, null, null);
  }

  public Op op() {
    return op;
  }

  /** The key, or null for COUNT. */
  public String key() {
    return key;
  }

  /** A copy of the value, or null unless this is a PUT. */
  public byte[] value() {
    return value == null ? null : value.clone();
  }

  /** The value without copying, for the state machine's own use. */
  byte[] valueUnsafe() {
    return value;
  }

  public Message toMessage() {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(op.code);
      if (key != null) {
        writeBytes(out, key.getBytes(StandardCharsets.UTF_8));
      }
      if (value != null) {
        writeBytes(out, value);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot happen: writing to memory", e);
    }
    return Message.valueOf(ByteString.copyFrom(bytes.toByteArray()));
  }

  /**
   * Decodes a command.
   *
   * @throws IllegalArgumentException if the bytes are not a well-formed command
   */
  public static KvCommand decode(ByteString bytes) {
    try (DataInputStream in = new DataInputStream(bytes.newInput())) {
      if (bytes.isEmpty()) {
        throw new IllegalArgumentException("empty key-value command");
      }
      final Op op = Op.fromCode(in.readByte());
      final String key = op == Op.COUNT ? null : new String(readBytes(in), StandardCharsets.UTF_8);
      final byte[] value = op == Op.PUT ? readBytes(in) : null;
      if (in.available() > 0) {
        throw new IllegalArgumentException("trailing bytes after " + op + " command");
      }
      return new KvCommand(op, key, value);
    } catch (IOException e) {
      throw new IllegalArgumentException("truncated key-value command", e);
    }
  }

  static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  static byte[] readBytes(DataInputStream in) throws IOException {
    final int length = in.readInt();
    if (length < 0) {
      throw new IOException("negative length " + length);
    }
    final byte[] bytes = new byte[length];
    in.readFully(bytes);
    return bytes;
  }

  @Override
  public String toString() {
    return op + (key == null ? "" : " " + key) + (value == null ? "" : " (" + value.length + " bytes)");
  }
}
