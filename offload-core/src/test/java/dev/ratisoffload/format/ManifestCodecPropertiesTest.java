package dev.ratisoffload.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

class ManifestCodecPropertiesTest {

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
    byte[] encoded = ManifestCodec.encode(manifest);
    int at = position % encoded.length;
    encoded[at] = (byte) (encoded[at] + delta);
    assertThrows(CorruptManifestException.class, () -> ManifestCodec.decode(encoded, "k"));
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
