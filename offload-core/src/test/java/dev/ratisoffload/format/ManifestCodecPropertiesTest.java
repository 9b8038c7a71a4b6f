package dev.ratisoffload.format;

import dev.ratisoffload.primitives.Hashes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class ManifestCodecPropertiesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Provide
  Arbitrary<Manifest> manifests() {
    return ManifestFixtures.manifests();
  }

  @Property(tries = 300)
  void roundTrips(@ForAll("manifests") Manifest manifest) {
    byte[] encoded = ManifestCodec.encode(manifest);
    Manifest decoded = ManifestCodec.decode(encoded, "k");
    assertEquals(manifest, decoded);
    assertArrayEquals(encoded, ManifestCodec.encode(decoded), "encoding is deterministic");
  }

  @Property(tries = 1000)
  void rejectsEverySingleByteChange(@ForAll("manifests") Manifest manifest,
      @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int position,
      @ForAll @IntRange(min = 1, max = 255) int delta) {
    byte[] changed = ManifestFixtures.withOneByteChanged(ManifestCodec.encode(manifest), position, delta);
    assertThrows(CorruptManifestException.class, () -> ManifestCodec.decode(changed, "k"));
  }

  @Property(tries = 500)
  void rejectsEveryTruncation(@ForAll("manifests") Manifest manifest,
      @ForAll @IntRange(min = 0, max = Integer.MAX_VALUE) int cut) {
    byte[] encoded = ManifestCodec.encode(manifest);
    byte[] truncated = Arrays.copyOf(encoded, cut % encoded.length);
    assertThrows(CorruptManifestException.class, () -> ManifestCodec.decode(truncated, "k"));
  }

  @Property(tries = 500)
  void rejectsEveryExtension(@ForAll("manifests") Manifest manifest,
      @ForAll("nonEmptyBytes") byte[] tail) {
    byte[] encoded = ManifestCodec.encode(manifest);
    byte[] extended = Arrays.copyOf(encoded, encoded.length + tail.length);
    System.arraycopy(tail, 0, extended, encoded.length, tail.length);
    assertThrows(CorruptManifestException.class, () -> ManifestCodec.decode(extended, "k"));
  }

  @Provide
  Arbitrary<byte[]> nonEmptyBytes() {
    return Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(16);
  }

  @Provide
  Arbitrary<String> hostilePaths() {
    return Arbitraries.of("/etc/passwd", "../escape", "sm/../../escape", "sm/./x", "", "sm//x", "sm/",
        "current/raft-meta", "in_use.lock", "sm/a\u0000b", "sm\\..\\x", "sm/..", "C:/x", "sm/x\ny",
        "sm/" + "a".repeat(256), ".", "..", "sm/a b");
  }

  /** A hostile path is refused when writing, and when reading a manifest whose hash is right. */
  @Property
  void rejectsHostileFileNames(@ForAll("hostilePaths") String path) {
    Manifest hostile = ManifestFixtures.withFiles(List.of(ManifestFixtures.file(path, new byte[] {1})));
    assertThrows(IllegalArgumentException.class, () -> ManifestCodec.encode(hostile));
    byte[] forged = forge(ManifestFixtures.withFiles(
        List.of(ManifestFixtures.file("sm/PLACEHOLDER", new byte[] {1}))), "sm/PLACEHOLDER", path);
    assertThrows(CorruptManifestException.class, () -> ManifestCodec.decode(forged, "k"));
  }

  @Property(tries = 20)
  void rejectsDuplicateAndNestedPaths(@ForAll("manifests") Manifest manifest) {
    Manifest.FileEntry first = manifest.files().get(0);
    List<Manifest.FileEntry> duplicated = new ArrayList<>(manifest.files());
    duplicated.add(first);
    assertThrows(IllegalArgumentException.class,
        () -> ManifestCodec.encode(ManifestFixtures.withFiles(duplicated)));
    List<Manifest.FileEntry> nested = new ArrayList<>(manifest.files());
    nested.add(ManifestFixtures.file(first.path() + "/inner", new byte[] {2}));
    assertThrows(IllegalArgumentException.class,
        () -> ManifestCodec.encode(ManifestFixtures.withFiles(nested)));
  }

  /** A format 1 object, as version 0.1.0 wrote it: peers with an id and an address only. */
  static final String FORMAT_1_BODY = """
      {
        "format" : 1,
        "cluster" : "prod-1",
        "group" : "6e2b1a4c-3f1d-4d6e-9a8b-0c1d2e3f4a5b",
        "term" : 3,
        "index" : 300,
        "peers" : [ {
          "id" : "n0",
          "address" : "127.0.0.1:9000"
        }, {
          "id" : "n1",
          "address" : "127.0.0.1:9001"
        } ],
        "publisher" : {
          "peer" : "n0",
          "leaderTerm" : 4
        },
        "createdAt" : "2026-12-02T10:00:00Z",
        "toolVersion" : "0.1.0",
        "files" : [ {
          "path" : "sm/snapshot.3_300",
          "size" : 1,
          "sha256" : "4bf5122f344554c53bde2ebb8cd2b7e3d1600ad631c385a5d7cce23c7785459a",
          "md5" : "55a54008ad1ba589aa210d2629c1df41",
          "chunks" : [ {
            "sha256" : "4bf5122f344554c53bde2ebb8cd2b7e3d1600ad631c385a5d7cce23c7785459a",
            "size" : 1
          } ]
        } ]
      }""";

  @Test
  void readsFormat1AsVotingPeersWithRatisDefaults() {
    Manifest read = ManifestCodec.decode(withHeader(1, FORMAT_1_BODY), "k");

    Manifest expected = ManifestFixtures.withFiles(
        List.of(ManifestFixtures.file("sm/snapshot.3_300", new byte[] {1})));
    assertEquals(Manifest.FORMAT_1, read.format());
    assertEquals(expected.peers(), read.peers());
    assertEquals(new Manifest.Peer("n0", "127.0.0.1:9000", null, null, null, 0, Manifest.Role.FOLLOWER),
        read.peers().get(0));
    assertEquals(expected.files(), read.files());
    assertEquals(expected.publisher(), read.publisher());
  }

  @Test
  void format1CannotCarryFormat2FieldsNorBeWrittenAgain() {
    String listener = FORMAT_1_BODY.replace("\"address\" : \"127.0.0.1:9001\"",
        "\"address\" : \"127.0.0.1:9001\", \"role\" : \"LISTENER\"");
    CorruptManifestException e = assertThrows(CorruptManifestException.class,
        () -> ManifestCodec.decode(withHeader(1, listener), "k"));
    assertTrue(e.getMessage().contains("unknown field 'role'"), e.getMessage());
    assertThrows(CorruptManifestException.class,
        () -> ManifestCodec.decode(withHeader(2, FORMAT_1_BODY), "k"), "a format 2 object lacks fields");
    assertThrows(CorruptManifestException.class,
        () -> ManifestCodec.decode(withHeader(1, FORMAT_1_BODY + " {}"), "k"), "trailing content");
    assertThrows(CorruptManifestException.class, () -> ManifestCodec.decode(withHeader(1,
        FORMAT_1_BODY.replace("\"term\" : 3,", "\"term\" : 3, \"term\" : 3,")), "k"), "a duplicate key");
    Manifest read = ManifestCodec.decode(withHeader(1, FORMAT_1_BODY), "k");
    assertThrows(IllegalArgumentException.class, () -> ManifestCodec.encode(read));
  }

  /** Whatever Ratis takes for a peer is published and read back: no rule stops a cluster's publishes. */
  @Test
  void acceptsEveryIdAndAddressRatisTakes() {
    List<Manifest.Peer> peers = List.of(
        new Manifest.Peer("rack=1,n 1", "[::1]:9872", "[fe80::1%eth0]:9873", "[::ffff:10.0.0.1]:9874",
            "Node_3.example:9875", 1, Manifest.Role.FOLLOWER),
        new Manifest.Peer("\u8282\u70b9-2", "10.0.0.2:9872"),
        new Manifest.Peer(" n3 ", "[2001:db8::3]:9872"));
    Manifest base = ManifestFixtures.withFiles(List.of(ManifestFixtures.file("sm/a", new byte[] {1})));
    Manifest manifest = new Manifest(base.format(), base.cluster(), base.group(), base.term(),
        base.index(), peers, new Manifest.Publisher("rack=1,n 1", 4), base.createdAt(), base.toolVersion(),
        base.files());
    assertEquals(manifest, ManifestCodec.decode(ManifestCodec.encode(manifest), "k"));
    // A broken surrogate pair cannot travel in UTF-8 JSON, but a publisher's own id could hold one.
    assertThrows(IllegalArgumentException.class, () -> ManifestCodec.encode(new Manifest(base.format(),
        base.cluster(), base.group(), base.term(), base.index(), List.of(new Manifest.Peer("n\ud800", "h:1")),
        new Manifest.Publisher("n\ud800", 4), base.createdAt(), base.toolVersion(), base.files())));
  }

  /** Strings a hostile store could put where a manifest names a peer. */
  @Provide
  Arbitrary<String> hostilePeerStrings() {
    return Arbitraries.oneOf(
        Arbitraries.of("", "n1\u001b[2J", "\u001b]0;owned\u0007", "n1\r\nn2", "n\u0000", "\u202en1",
            "n\u009b2J", "n\u0085", "n\u2028", "n\u200b", "a".repeat(PeerRules.MAX_PEER_ID + 1),
            "h:0", "h:65536", "h", ":1", "h:1:2", "[::1", "h:1\u001b[31m", "\u00e9:1", "::1:9872", "[::1]",
            "[fe80::1%eth\u001b]:1", "n1 n2:1"),
        Arbitraries.strings().ofMinLength(1).ofMaxLength(40)
            .filter(s -> s.chars().anyMatch(c -> c < 0x20 || c >= 0x7f && c < 0xa0)),
        Arbitraries.strings().withCharRange('a', 'z').ofMinLength(260).ofMaxLength(5000).map(s -> s + ":1"));
  }

  /** Every place a manifest names a peer; each is refused with its field named, and printed safely. */
  @Property(tries = 400)
  void rejectsHostilePeerStrings(@ForAll("hostilePeerStrings") String hostile,
      @ForAll @IntRange(min = 0, max = 5) int place) {
    String[] fields = {"id", "address", "clientAddress", "adminAddress", "dataStreamAddress", "peer"};
    String field = fields[place];
    boolean isAddress = place >= 1 && place <= 4;
    Assume.that(isAddress ? !PeerRules.isValidAddress(hostile) : !PeerRules.isValidPeerId(hostile));
    byte[] forged = forgeTree(ManifestFixtures.withFiles(
        List.of(ManifestFixtures.file("sm/a", new byte[] {1}))), body -> {
          ObjectNode target = (ObjectNode) (field.equals("peer") ? body.get("publisher") : body.get("peers").get(1));
          target.put(field, hostile);
        });
    CorruptManifestException e = assertThrows(CorruptManifestException.class,
        () -> ManifestCodec.decode(forged, "k"));
    assertTrue(e.getMessage().contains(field.equals("peer") ? "publisher.peer" : "peers[1]." + field),
        e.getMessage());
    assertTrue(e.getMessage().chars().allMatch(c -> c >= 0x20 && c <= 0x7e), "printable: " + e.getMessage());
    assertTrue(e.getMessage().length() < 400, "bounded: " + e.getMessage().length());
  }

  @Property(tries = 50)
  void keepsEveryPeerField(@ForAll("manifests") Manifest manifest) {
    Manifest decoded = ManifestCodec.decode(ManifestCodec.encode(manifest), "k");
    assertEquals(manifest.peers(), decoded.peers(), "ids, every address, priority and role");
  }

  /** The object with a header of the given version over the body's exact bytes. */
  static byte[] withHeader(int version, String body) {
    byte[] bodyBytes = body.getBytes(StandardCharsets.UTF_8);
    String header = ManifestCodec.MAGIC + " " + version + " sha256=" + Hashes.sha256Hex(bodyBytes) + "\n";
    return (header + body).getBytes(StandardCharsets.UTF_8);
  }

  /** Encodes a valid manifest, edits its JSON tree and writes it with a right hash. */
  static byte[] forgeTree(Manifest valid, Consumer<ObjectNode> edit) {
    String object = new String(ManifestCodec.encode(valid), StandardCharsets.UTF_8);
    try {
      ObjectNode body = (ObjectNode) JSON.readTree(object.substring(object.indexOf('\n') + 1));
      edit.accept(body);
      return withHeader(Manifest.FORMAT_VERSION, JSON.writeValueAsString(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Encodes a valid manifest, replaces a string in its JSON body and writes a header with the right
   * hash: a forger who controls the whole object.
   */
  static byte[] forge(Manifest valid, String from, String to) {
    String object = new String(ManifestCodec.encode(valid), StandardCharsets.UTF_8);
    String body = object.substring(object.indexOf('\n') + 1);
    String escaped = to.replace("\\", "\\\\").replace("\u0000", "\\u0000").replace("\n", "\\n");
    byte[] forgedBody = body.replace(from, escaped).getBytes(StandardCharsets.UTF_8);
    String header = ManifestCodec.MAGIC + " " + Manifest.FORMAT_VERSION + " sha256="
        + Hashes.sha256Hex(forgedBody) + "\n";
    byte[] headerBytes = header.getBytes(StandardCharsets.US_ASCII);
    byte[] forged = Arrays.copyOf(headerBytes, headerBytes.length + forgedBody.length);
    System.arraycopy(forgedBody, 0, forged, headerBytes.length, forgedBody.length);
    return forged;
  }
}
