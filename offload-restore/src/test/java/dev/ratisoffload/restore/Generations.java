package dev.ratisoffload.restore;

import dev.ratisoffload.format.ChunkingPolicy;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.format.ManifestCodec;
import dev.ratisoffload.primitives.Hashes;
import dev.ratisoffload.publish.GenerationPublisher;
import dev.ratisoffload.publish.PublishResult;
import dev.ratisoffload.publish.SnapshotSource;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.ObjectStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Publishes generations into a store the way the plugin does, from snapshot files made up here. */
public final class Generations {

  public static final List<Manifest.Peer> PEERS = List.of(new Manifest.Peer("n0", "127.0.0.1:9000"),
      new Manifest.Peer("n1", "127.0.0.1:9001"), new Manifest.Peer("n2", "127.0.0.1:9002"));

  private Generations() {}

  /** A snapshot to publish: its files' bytes by path relative to the group directory, and its peers. */
  public record Snapshot(String cluster, String group, long term, long index, long leaderTerm,
      Instant createdAt, Map<String, byte[]> files, List<Manifest.Peer> peers) {

    /** A snapshot of a group on {@link #PEERS}. */
    public Snapshot(String cluster, String group, long term, long index, long leaderTerm, Instant createdAt,
        Map<String, byte[]> files) {
      this(cluster, group, term, index, leaderTerm, createdAt, files, PEERS);
    }

    /** The same snapshot of a group whose configuration is {@code members}. */
    public Snapshot withPeers(List<Manifest.Peer> members) {
      return new Snapshot(cluster, group, term, index, leaderTerm, createdAt, files, members);
    }
  }

  /** A Ratis-style snapshot of random bytes: one state machine file, as SimpleStateMachineStorage names it. */
  public static Snapshot snapshot(String cluster, String group, long term, long index, Instant createdAt,
      int bytes, long seed) {
    Map<String, byte[]> files = new LinkedHashMap<>();
    files.put("sm/snapshot." + term + "_" + index, random(bytes, seed));
    return new Snapshot(cluster, group, term, index, term + 1, createdAt, files);
  }

  public static byte[] random(int size, long seed) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  /** Publishes with small chunks, so every file spans several. */
  public static PublishResult.Published publish(ObjectStore store, Path scratch, Snapshot snapshot)
      throws IOException {
    Path dir = Files.createTempDirectory(scratch, "pin");
    List<SnapshotSource.PinnedFile> pinned = new ArrayList<>();
    for (Map.Entry<String, byte[]> file : snapshot.files().entrySet()) {
      Path path = dir.resolve(file.getKey().replace('/', '_'));
      Files.write(path, file.getValue());
      pinned.add(new SnapshotSource.PinnedFile(file.getKey(), path,
          Hashes.hex(Hashes.md5().digest(file.getValue()))));
    }
    SnapshotSource source = new SnapshotSource(snapshot.cluster(), snapshot.group(), snapshot.term(),
        snapshot.index(), snapshot.peers(), new Manifest.Publisher(snapshot.peers().get(0).id(),
        snapshot.leaderTerm()), pinned);
    GenerationPublisher publisher = new GenerationPublisher(store, ChunkingPolicy.ofAverage(1024),
        Runnable::run, 4, Clock.fixed(snapshot.createdAt(), ZoneOffset.UTC));
    PublishResult result = publisher.publish(source, () -> null);
    if (!(result instanceof PublishResult.Published published)) {
      throw new IllegalStateException("not published: " + result);
    }
    return published;
  }

  /**
   * The object an attacker with write access to the store could put in place of {@code valid}'s: its
   * JSON text with {@code from} replaced by {@code to}, under a header whose hash matches.
   */
  public static byte[] forge(Manifest valid, String from, String to) {
    String object = new String(ManifestCodec.encode(valid), StandardCharsets.UTF_8);
    String body = object.substring(object.indexOf('\n') + 1);
    if (!body.contains(from)) {
      throw new IllegalArgumentException("the manifest does not say " + from);
    }
    body = body.replace(from, to);
    return ("ratis-offload-manifest " + Manifest.FORMAT_VERSION + " sha256=" + Hashes.sha256Hex(body.getBytes(StandardCharsets.UTF_8))
        + "\n" + body).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Stores the chunks of a generation made by hand, each file with an MD5, and returns its manifest (term
   * 1, index 5), which the caller stores as it is or forged ({@link #forge}).
   *
   * @param files each file's chunks, by path
   */
  public static Manifest putChunks(ObjectStore store, String cluster, String group, String publisher,
      Map<String, List<byte[]>> files) {
    List<Manifest.FileEntry> entries = new ArrayList<>();
    for (Map.Entry<String, List<byte[]>> file : files.entrySet()) {
      MessageDigest sha = Hashes.sha256();
      MessageDigest md5 = Hashes.md5();
      List<Manifest.ChunkRef> chunks = new ArrayList<>();
      long size = 0;
      for (byte[] chunk : file.getValue()) {
        String chunkSha = Hashes.sha256Hex(chunk);
        store.putIfAbsent(Layout.chunkKey(cluster, group, chunkSha), Content.of(chunk));
        chunks.add(new Manifest.ChunkRef(chunkSha, chunk.length));
        sha.update(chunk);
        md5.update(chunk);
        size += chunk.length;
      }
      entries.add(new Manifest.FileEntry(file.getKey(), size, Hashes.hex(sha.digest()), Hashes.hex(md5.digest()),
          chunks));
    }
    return new Manifest(Manifest.FORMAT_VERSION, cluster, group, 1, 5, PEERS, new Manifest.Publisher(publisher, 1),
        Instant.parse("2026-05-01T00:00:00Z"), "test", entries);
  }
}
