package dev.ratisoffload.scrub;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.format.VerificationRecord.Damage;
import dev.ratisoffload.format.VerificationRecord;
import dev.ratisoffload.format.VerificationRecords;
import dev.ratisoffload.primitives.Hashes;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectNotFoundException;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreAccessException;
import dev.ratisoffload.store.StoreUnavailableException;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Re-reads a stored generation and records what it found: every distinct chunk read once, within a
 * {@link Pacer}, and checked against its size and SHA-256. A damaged chunk is moved aside (copied under
 * {@link Layout#DAMAGED} for inspection, then deleted), so that the next publish of the group sees it
 * missing and stores it again; a store that refuses the delete (object lock) leaves it in place, and
 * the record says so. The result is written as an immutable {@link VerificationRecord}.
 */
public final class Scrubber {

  /** Paces the bytes read, so a scrub takes a bounded share of the store's and the network's bandwidth. */
  public interface Pacer {
    void acquire(long bytes) throws InterruptedException;
  }

  private final ObjectStore store;
  private final GenerationReader reader;
  private final Clock clock;
  private final Pacer pacer;

  public Scrubber(ObjectStore store, Clock clock, Pacer pacer) {
    this.store = store;
    this.reader = new GenerationReader(store);
    this.clock = clock;
    this.pacer = pacer;
  }

  /**
   * Verifies the generation and writes its record; empty when the generation was removed meanwhile
   * (retention), which is not damage and gets no record. Store outages propagate as
   * {@link StoreUnavailableException}s, with no record written.
   *
   * @param moveAside move damaged chunks aside (the plugin's scrub); false only reports them
   */
  public Optional<VerificationRecord> scrub(GenerationId id, String verifiedBy, boolean moveAside)
      throws InterruptedException {
    Manifest manifest;
    try {
      manifest = reader.readManifest(id);
    } catch (ObjectNotFoundException e) {
      return Optional.empty();
    } catch (IntegrityException e) {
      return Optional.of(record(id, verifiedBy, List.of(), "the manifest cannot be read: " + e.getMessage()));
    }
    Map<String, Integer> chunks = new LinkedHashMap<>();
    manifest.files().forEach(file -> file.chunks().forEach(chunk -> chunks.putIfAbsent(chunk.sha256(), chunk.size())));
    byte[] buffer = new byte[chunks.values().stream().mapToInt(Integer::intValue).max().orElse(0) + 1];
    List<String> damagedKeys = new ArrayList<>();
    List<Damage> damaged = new ArrayList<>();
    for (Map.Entry<String, Integer> chunk : chunks.entrySet()) {
      pacer.acquire(chunk.getValue());
      String key = Layout.chunkKey(id.cluster(), id.group(), chunk.getKey());
      String problem = check(key, chunk.getKey(), chunk.getValue(), buffer);
      if (problem != null) {
        damagedKeys.add(key);
        damaged.add(new Damage(chunk.getKey(), problem, null));
      }
    }
    if (!damaged.isEmpty() && store.head(id.manifestKey()).isEmpty()) {
      return Optional.empty(); // removed while it was read: its chunks went with it
    }
    List<String> notes = new ArrayList<>();
    if (moveAside) {
      for (int i = 0; i < damaged.size(); i++) {
        damaged.set(i, moveAside(id, damagedKeys.get(i), damaged.get(i), notes));
      }
    }
    return Optional.of(record(id, verifiedBy, damaged, notes.isEmpty() ? null : String.join("; ", notes)));
  }

  private VerificationRecord record(GenerationId id, String verifiedBy, List<Damage> damaged, String note) {
    VerificationRecord record = VerificationRecord.of(id, clock.instant(), verifiedBy, damaged, note);
    VerificationRecords.write(store, record);
    return record;
  }

  /** What is wrong with a stored chunk, or null when it is whole. */
  private String check(String key, String sha256, int size, byte[] buffer) {
    int read;
    try (InputStream in = store.get(key)) {
      read = in.readNBytes(buffer, 0, size + 1);
    } catch (ObjectNotFoundException e) {
      return Damage.MISSING;
    } catch (IOException e) {
      throw new StoreUnavailableException("cannot read " + key + " from " + store.describe() + ": " + e, e);
    }
    if (read != size) {
      return Damage.WRONG_SIZE;
    }
    return Hashes.sha256Hex(buffer, 0, size).equals(sha256) ? null : Damage.WRONG_CONTENT;
  }

  /** Copies a damaged chunk under the damaged tree and deletes it; says in {@code notes} what it could not do. */
  private Damage moveAside(GenerationId id, String key, Damage damage, List<String> notes) {
    if (damage.problem().equals(Damage.MISSING)) {
      return damage;
    }
    String keptAt = Layout.damagedChunkKey(id.cluster(), id.group(), damage.sha256(), clock.instant());
    try (InputStream in = store.get(key)) {
      store.putIfAbsent(keptAt, Content.of(in.readAllBytes()));
    } catch (ObjectNotFoundException e) {
      return new Damage(damage.sha256(), Damage.MISSING, null);
    } catch (IOException e) {
      throw new StoreUnavailableException("cannot read " + key + " from " + store.describe() + ": " + e, e);
    }
    try {
      store.delete(key);
    } catch (StoreAccessException e) {
      notes.add("chunk " + damage.sha256() + " was copied to " + keptAt + " but cannot be removed ("
          + e.getMessage() + "): it stays damaged in place, and no publish can store it again until it is removed");
    }
    return new Damage(damage.sha256(), damage.problem(), keptAt);
  }
}
