package dev.ratisoffload.restore;

import dev.ratisoffload.format.GenerationReader.StoredGeneration;
import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.Layout.VerificationMark;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.format.VerificationRecords;
import dev.ratisoffload.primitives.DaemonThreads;
import dev.ratisoffload.primitives.Futures;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectNotFoundException;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** What a store holds: generations by cluster and group, with their manifests. */
public final class GenerationCatalog {

  /** Manifests are small; a few reads in flight hide an object store's latency. */
  private static final int PARALLEL_READS = 8;

  private final ObjectStore store;
  private final GenerationReader reader;

  public GenerationCatalog(ObjectStore store) {
    this.store = store;
    this.reader = new GenerationReader(store);
  }

  /** A cluster's group. */
  public record GroupKey(String cluster, String group) {}

  /**
   * A generation with its manifest, or the defect that kept the manifest from being read.
   *
   * @param manifest null when {@code problem} is set
   * @param problem why the manifest is unusable; null when it is fine
   */
  public record Entry(StoredGeneration stored, Manifest manifest, IntegrityException problem) {

    /** When the generation was created: the manifest's time, or the object's when it is unreadable. */
    public Instant createdAt() {
      return manifest != null ? manifest.createdAt() : stored.manifestObject().lastModified();
    }
  }

  /** Every selected generation, grouped by cluster and group (in key order), oldest first in each. */
  public Map<GroupKey, List<StoredGeneration>> find(Selection selection) {
    Map<GroupKey, List<StoredGeneration>> groups = new LinkedHashMap<>();
    for (StoredGeneration g : reader.list(selection.prefix())) {
      if (selection.matches(g.id())) {
        groups.computeIfAbsent(new GroupKey(g.id().cluster(), g.id().group()), k -> new ArrayList<>()).add(g);
      }
    }
    return groups;
  }

  /** The named groups that have no generation at all. */
  public List<String> missingGroups(Selection selection, Map<GroupKey, List<StoredGeneration>> found) {
    return selection.groups().stream()
        .filter(group -> found.keySet().stream().noneMatch(k -> k.group().equals(group)))
        .toList();
  }

  /**
   * Reads the manifests of the generations, several at a time. A corrupt manifest becomes an entry
   * with a problem; a store failure is thrown.
   */
  public List<Entry> read(List<StoredGeneration> generations) {
    if (generations.isEmpty()) {
      return List.of();
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(PARALLEL_READS, generations.size()), DaemonThreads.named("offload-manifest-read"));
    try {
      List<Future<Entry>> futures = new ArrayList<>();
      for (StoredGeneration g : generations) {
        futures.add(pool.submit(() -> readOne(g)));
      }
      List<Entry> entries = new ArrayList<>();
      for (Future<Entry> future : futures) {
        entries.add(Futures.join(future, "reading manifests"));
      }
      return entries;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Reads the manifests like {@link #read}, leaving out the generations removed since they were listed
   * (retention on a live store): they are no generations any more, not corrupt ones.
   */
  public List<Entry> readStored(List<StoredGeneration> generations) {
    return read(generations).stream()
        .filter(e -> e.problem() == null || !removedSinceListed(e.stored().id()))
        .toList();
  }

  /** Reads one manifest; a defect (or the object vanishing since the listing) becomes the entry's problem. */
  public Entry readOne(StoredGeneration g) {
    try {
      return new Entry(g, reader.readManifest(g.id()), null);
    } catch (IntegrityException e) {
      return new Entry(g, null, e);
    } catch (ObjectNotFoundException e) {
      return new Entry(g, null, new IntegrityException("manifest " + g.id().manifestKey()
          + " disappeared after it was listed (deleted meanwhile?)"));
    }
  }

  /**
   * Reads the newest of a group's listed generations. If retention removed it since the listing (a newer
   * one was published meanwhile and fewer are kept), the group's newest as listed now is read instead.
   */
  public Entry readNewest(List<StoredGeneration> listed) {
    Entry newest = readOne(listed.get(listed.size() - 1));
    GenerationId id = newest.stored().id();
    if (newest.problem() != null && removedSinceListed(id)) {
      return reader.newest(id.cluster(), id.group()).map(this::readOne).orElse(newest);
    }
    return newest;
  }

  /**
   * Whether a generation found unreadable or damaged was removed since it was listed: retention deletes
   * the manifest first, then (after a grace period) its chunks. A group that lists no manifest any more
   * (the store's root gone, say) or a store that cannot be asked keeps the defect: false.
   */
  public boolean removedSinceListed(GenerationId id) {
    try {
      return store.head(id.manifestKey()).isEmpty()
          && !store.list(Layout.manifestPrefix(id.cluster(), id.group())).isEmpty();
    } catch (StoreException e) {
      return false;
    }
  }

  /** The latest verification of each generation of the groups, from one listing per group. */
  public Map<GenerationId, VerificationMark> verifications(Collection<GroupKey> groups) {
    Map<GenerationId, VerificationMark> latest = new HashMap<>();
    for (GroupKey key : groups) {
      latest.putAll(VerificationRecords.latest(store, key.cluster(), key.group()));
    }
    return latest;
  }
}
