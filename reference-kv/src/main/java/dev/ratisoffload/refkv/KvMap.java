package dev.ratisoffload.refkv;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * The state of the key-value store (sorted string keys to byte values) and its snapshot format.
 *
 * <p>Not thread-safe: the state machine guards it with its own lock. Values are never mutated
 * after insertion, so a shallow copy is a consistent point-in-time view.
 *
 * <p>Snapshot stream format: the magic {@code RKV1}, an entry count, then per entry a
 * length-prefixed UTF-8 key and a length-prefixed value, in key order.
 */
public final class KvMap {
  private static final int MAGIC = 0x524B5631; // "RKV1"

  private final TreeMap<String, byte[]> entries = new TreeMap<>();

  /** Applies a PUT or DELETE and returns the reply; true means the key existed before. */
  ByteString apply(KvCommand command) {
    switch (command.op()) {
      case PUT:
        return KvReply.flag(entries.put(command.key(), command.valueUnsafe()) != null);
      case DELETE:
        return KvReply.flag(entries.remove(command.key()) != null);
      default:
        throw new IllegalArgumentException(command.op() + " is a query, not a write");
    }
  }

  /** Answers a GET or COUNT. */
  ByteString query(KvCommand command) {
    switch (command.op()) {
      case GET:
        return KvReply.value(entries.get(command.key()));
      case COUNT:
        return KvReply.count(entries.size());
      default:
        throw new IllegalArgumentException(command.op() + " is a write, not a query");
    }
  }

  public int size() {
    return entries.size();
  }

  /** A point-in-time copy, safe to serialize while the map keeps changing. */
  public SortedMap<String, byte[]> copy() {
    return new TreeMap<>(entries);
  }

  public void replaceAll(Map<String, byte[]> newEntries) {
    entries.clear();
    entries.putAll(newEntries);
  }

  public void clear() {
    entries.clear();
  }

  /** Writes entries in the snapshot stream format (does not close the stream). */
  public static void write(SortedMap<String, byte[]> entries, OutputStream stream) throws IOException {
    final DataOutputStream out = new DataOutputStream(stream);
    out.writeInt(MAGIC);
    out.writeInt(entries.size());
    for (Map.Entry<String, byte[]> e : entries.entrySet()) {
      KvCommand.writeBytes(out, e.getKey().getBytes(StandardCharsets.UTF_8));
      KvCommand.writeBytes(out, e.getValue());
    }
    out.flush();
  }

  /** Reads a whole snapshot stream; fails on a wrong magic, truncation or trailing bytes. */
  public static SortedMap<String, byte[]> read(InputStream stream) throws IOException {
    final DataInputStream in = new DataInputStream(stream);
    final int magic = in.readInt();
    if (magic != MAGIC) {
      throw new IOException("not a key-value snapshot: magic " + Integer.toHexString(magic));
    }
    final int count = in.readInt();
    final SortedMap<String, byte[]> result = new TreeMap<>();
    for (int i = 0; i < count; i++) {
      final String key = new String(KvCommand.readBytes(in), StandardCharsets.UTF_8);
      result.put(key, KvCommand.readBytes(in));
    }
    if (in.read() != -1) {
      throw new IOException("trailing bytes after " + count + " snapshot entries");
    }
    return result;
  }

  /** Splits entries into {@code shards} maps by key hash, so each key has one stable shard. */
  public static List<SortedMap<String, byte[]>> split(SortedMap<String, byte[]> entries, int shards) {
    final List<SortedMap<String, byte[]>> result = new ArrayList<>(shards);
    for (int i = 0; i < shards; i++) {
      result.add(new TreeMap<>());
    }
    entries.forEach((k, v) -> result.get(Math.floorMod(k.hashCode(), shards)).put(k, v));
    return Collections.unmodifiableList(result);
  }
}
