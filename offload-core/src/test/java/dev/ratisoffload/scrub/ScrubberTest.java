package dev.ratisoffload.scrub;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.format.ManifestCodec;
import dev.ratisoffload.format.VerificationRecord.Damage;
import dev.ratisoffload.format.VerificationRecord;
import dev.ratisoffload.format.VerificationRecords;
import dev.ratisoffload.primitives.Hashes;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.DeleteRefusedException;
import dev.ratisoffload.store.DirectoryObjectStore;
import dev.ratisoffload.store.ForwardingObjectStore;
import dev.ratisoffload.store.ObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scrub over a directory store: what it finds, what it moves aside, what it records. */
class ScrubberTest {

  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-07T12:00:00Z"), ZoneOffset.UTC);
  private final String group = UUID.randomUUID().toString();
  private final AtomicLong paced = new AtomicLong();
  private ObjectStore store;
  private GenerationId id;
  private List<String> chunks;

  @TempDir
  Path dir;

  @BeforeEach
  void publish() {
    store = new DirectoryObjectStore(dir.resolve("store"));
    List<Manifest.FileEntry> files = new ArrayList<>();
    chunks = new ArrayList<>();
    for (int f = 0; f < 2; f++) {
      List<Manifest.ChunkRef> refs = new ArrayList<>();
      var whole = Hashes.sha256();
      long size = 0;
      for (int c = 0; c < 3; c++) {
        byte[] bytes = ("file " + f + " chunk " + c + " ").repeat(50).getBytes();
        String sha = Hashes.sha256Hex(bytes);
        store.putIfAbsent(Layout.chunkKey("c", group, sha), Content.of(bytes));
        refs.add(new Manifest.ChunkRef(sha, bytes.length));
        chunks.add(sha);
        whole.update(bytes);
        size += bytes.length;
      }
      files.add(new Manifest.FileEntry("sm/f" + f, size, Hashes.hex(whole.digest()), null, refs));
    }
    Manifest m = new Manifest(Manifest.FORMAT_VERSION, "c", group, 2, 200, List.of(new Manifest.Peer("p", "h:1")),
        new Manifest.Publisher("p", 2), CLOCK.instant(), "t", files);
    id = GenerationId.of(m);
    store.putIfAbsent(id.manifestKey(), Content.of(ManifestCodec.encode(m)));
  }

  private VerificationRecord scrub(ObjectStore on) throws InterruptedException {
    return new Scrubber(on, CLOCK, paced::addAndGet).scrub(id, "test", true).orElseThrow();
  }

  private String chunkKey(int i) {
    return Layout.chunkKey("c", group, chunks.get(i));
  }

  private byte[] read(String key) throws IOException {
    try (InputStream in = store.get(key)) {
      return in.readAllBytes();
    }
  }

  @Test
  void anIntactGenerationIsRecordedOkAfterEveryChunkWasReadWithinThePace() throws Exception {
    VerificationRecord record = scrub(store);
    assertTrue(record.ok(), record.toString());
    assertEquals(6 * 50L * "file 0 chunk 0 ".length(), paced.get(), "every chunk's bytes went through the pacer");
    Map<GenerationId, Layout.VerificationMark> latest = VerificationRecords.latest(store, "c", group);
    assertTrue(latest.get(id).ok());
    assertEquals(record, VerificationRecords.read(store, latest.get(id).key()));
  }

  @Test
  void aChangedChunkIsMovedAsideAndAMissingOneReported() throws Exception {
    byte[] original = read(chunkKey(1));
    byte[] changed = original.clone();
    changed[7] ^= 1;
    store.delete(chunkKey(1));
    store.putIfAbsent(chunkKey(1), Content.of(changed));
    store.delete(chunkKey(4));
    VerificationRecord record = scrub(store);
    assertFalse(record.ok());
    assertEquals(List.of(Damage.WRONG_CONTENT, Damage.MISSING), record.damaged().stream().map(Damage::problem).toList());
    Damage moved = record.damaged().get(0);
    assertEquals(chunks.get(1), moved.sha256());
    assertArrayEquals(changed, read(moved.keptAt()), "the damaged bytes are kept for inspection");
    assertTrue(store.head(chunkKey(1)).isEmpty(), "removed, so the next publish stores it again");
    assertNull(record.damaged().get(1).keptAt());
    assertFalse(VerificationRecords.latest(store, "c", group).get(id).ok());
  }

  @Test
  void aChunkTheStoreWillNotDeleteStaysReportedInPlace() throws Exception {
    store.delete(chunkKey(0));
    store.putIfAbsent(chunkKey(0), Content.of(new byte[] {1, 2, 3}));
    ObjectStore locked = new ForwardingObjectStore(store) {
      @Override
      public void delete(String key) {
        throw new DeleteRefusedException("object lock on " + key, null);
      }
    };
    VerificationRecord record = scrub(locked);
    assertEquals(Damage.WRONG_SIZE, record.damaged().get(0).problem());
    assertNotNull(record.note());
    assertTrue(record.note().contains("stays damaged in place"), record.note());
    assertTrue(store.head(chunkKey(0)).isPresent());
  }

  @Test
  void aGenerationRemovedWhileItIsReadGetsNoRecord() throws Exception {
    ObjectStore removing = new ForwardingObjectStore(store) {
      @Override
      public InputStream get(String key) {
        if (key.equals(chunkKey(2))) {
          store.delete(id.manifestKey());
          chunks.forEach(c -> store.delete(Layout.chunkKey("c", group, c)));
        }
        return super.get(key);
      }
    };
    assertEquals(Optional.empty(), new Scrubber(removing, CLOCK, paced::addAndGet).scrub(id, "test", true));
    assertTrue(VerificationRecords.latest(store, "c", group).isEmpty());
  }

  @Test
  void anUnreadableManifestIsRecordedDamaged() throws Exception {
    store.delete(id.manifestKey());
    store.putIfAbsent(id.manifestKey(), Content.of("not a manifest".getBytes()));
    VerificationRecord record = scrub(store);
    assertFalse(record.ok());
    assertTrue(record.note().startsWith("the manifest cannot be read"), record.note());
  }
}
