package dev.ratisoffload.format;

import dev.ratisoffload.primitives.Hashes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Valid manifests for tests, built by hand or generated. */
final class ManifestFixtures {

  private ManifestFixtures() {}

  /** A copy of an encoded object with one byte changed (at {@code position} modulo its length). */
  static byte[] withOneByteChanged(byte[] encoded, int position, int delta) {
    byte[] changed = encoded.clone();
    int at = position % changed.length;
    changed[at] = (byte) (changed[at] + delta);
    return changed;
  }

  static Manifest withFiles(List<Manifest.FileEntry> files) {
    return new Manifest(Manifest.FORMAT_VERSION, "prod-1", "6e2b1a4c-3f1d-4d6e-9a8b-0c1d2e3f4a5b", 3, 300,
        List.of(new Manifest.Peer("n0", "127.0.0.1:9000"), new Manifest.Peer("n1", "127.0.0.1:9001")),
        new Manifest.Publisher("n0", 4), Instant.parse("2026-12-02T10:00:00Z"), "0.1.0", files);
  }

  static Manifest.FileEntry file(String path, byte[] content) {
    String sha = Hashes.sha256Hex(content);
    List<Manifest.ChunkRef> chunks =
        content.length == 0 ? List.of() : List.of(new Manifest.ChunkRef(sha, content.length));
    return new Manifest.FileEntry(path, content.length, sha, Hashes.hex(Hashes.md5().digest(content)),
        chunks);
  }

  static Arbitrary<Manifest> manifests() {
    Arbitrary<String> segment = Arbitraries.strings().withChars("abcXYZ019._-").ofMinLength(1).ofMaxLength(12)
        .filter(s -> !s.equals(".") && !s.equals("..") && !s.equals("current"));
    Arbitrary<List<String>> paths = segment.list().ofMinSize(1).ofMaxSize(3)
        .map(segments -> "sm/" + String.join("/", segments))
        .list().ofMinSize(1).ofMaxSize(4).uniqueElements()
        .filter(ManifestFixtures::pathsCanCoexist);
    Arbitrary<byte[]> contents = Arbitraries.bytes().array(byte[].class).ofMaxSize(40);
    Arbitrary<List<Manifest.FileEntry>> files = paths.flatMap(list -> contents.list().ofSize(list.size())
        .map(bytes -> {
          List<Manifest.FileEntry> entries = new ArrayList<>();
          for (int i = 0; i < list.size(); i++) {
            entries.add(file(list.get(i), bytes.get(i)));
          }
          return entries;
        }));
    Arbitrary<Long> term = Arbitraries.longs().between(0, Long.MAX_VALUE / 2);
    Arbitrary<Long> index = Arbitraries.longs().between(0, Long.MAX_VALUE);
    Arbitrary<String> cluster = Arbitraries.strings().withChars("abc019-_.").ofMinLength(0).ofMaxLength(20)
        .map(s -> "c" + s);
    return Combinators.combine(cluster, term, index, files, Arbitraries.create(UUID::randomUUID), peers())
        .as((c, t, i, f, uuid, p) -> new Manifest(Manifest.FORMAT_VERSION, c, uuid.toString(), t, i,
            p, new Manifest.Publisher(p.get(0).id(), t + 1),
            Instant.ofEpochSecond(1_700_000_000L + i % 1000), "test", f));
  }

  /**
   * A configuration of 1-5 peers with every field Ratis keeps; the first one votes. Ids and addresses
   * range over what Ratis takes: ids with blanks, '=', ',' or letters beyond ASCII, IPv6 addresses.
   */
  static Arbitrary<List<Manifest.Peer>> peers() {
    Arbitrary<String> host = Arbitraries.oneOf(
        Arbitraries.strings().withChars("abcxyz019.-").ofMinLength(1).ofMaxLength(30),
        Arbitraries.of("127.0.0.1", "[::1]", "[fe80::1:2]", "[fe80::1%eth0]", "[::ffff:10.0.0.1]",
            "node-3.ratis.example.com"));
    Arbitrary<String> address = Combinators.combine(host, Arbitraries.integers().between(1, 65535))
        .as((h, port) -> h + ":" + port);
    Arbitrary<String> optional = Arbitraries.oneOf(Arbitraries.just(null), address);
    Arbitrary<Manifest.Peer> peer = Combinators.combine(
            Arbitraries.strings().withCharRange(' ', '~').withChars("éß节点 ")
                .ofMinLength(1).ofMaxLength(20),
            address, optional, optional, optional, Arbitraries.integers().between(0, 100),
            Arbitraries.of(Manifest.Role.class))
        .as(Manifest.Peer::new);
    return peer.list().ofMinSize(1).ofMaxSize(5).uniqueElements(Manifest.Peer::id)
        .map(list -> {
          List<Manifest.Peer> voting = new ArrayList<>(list);
          Manifest.Peer first = voting.get(0);
          voting.set(0, new Manifest.Peer(first.id(), first.address(), first.clientAddress(),
              first.adminAddress(), first.dataStreamAddress(), first.priority(), Manifest.Role.FOLLOWER));
          return voting;
        });
  }

  private static boolean pathsCanCoexist(List<String> paths) {
    for (String a : paths) {
      for (String b : paths) {
        if (b.startsWith(a + "/") || b.equals(a + ".md5")) {
          return false;
        }
      }
    }
    return true;
  }
}
