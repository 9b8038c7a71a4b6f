package dev.ratisoffload.retention;

import dev.ratisoffload.activity.GroupActivity;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.GenerationReader.StoredGeneration;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.Layout.VerificationMark;
import dev.ratisoffload.format.VerificationRecords;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.retention.RetentionPlan.Candidate;
import dev.ratisoffload.store.DeleteRefusedException;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectNotFoundException;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Applies a {@link RetentionPolicy} to one group in two phases: first the manifests the policy expires
 * (so those generations stop existing), then the chunks that no remaining manifest references, as a
 * sweep of {@link GroupActivity}: none while a publish of the group is in progress, since the publish may
 * count on them, and none after half of its marker's lifetime. It fails closed: a listing error, a manifest
 * that cannot be read or verified, or a key under the manifest tree that is not a manifest stops the
 * group's sweep before anything more is deleted, and the report says what was deleted and what was left.
 */
public final class GarbageCollector {

  private final ObjectStore store;
  private final GenerationReader reader;
  private final LongSupplier nanoTime;

  public GarbageCollector(ObjectStore store) {
    this(store, System::nanoTime);
  }

  /** With a local monotonic clock of the caller's (tests move it). */
  public GarbageCollector(ObjectStore store, LongSupplier nanoTime) {
    this.store = store;
    this.reader = new GenerationReader(store);
    this.nanoTime = nanoTime;
  }

  /** The groups of a cluster that have generations, as lowercase UUIDs. */
  public List<String> groups(String cluster) {
    Set<String> groups = new java.util.TreeSet<>();
    for (StoredGeneration g : reader.list(Layout.manifestPrefix(cluster))) {
      groups.add(g.id().group());
    }
    return new ArrayList<>(groups);
  }

  /**
   * Plans and, with {@code apply}, carries out garbage collection of one group. Without {@code apply}
   * nothing is changed: the report says what would be deleted.
   */
  public GcReport collect(String cluster, String group, RetentionPolicy policy, boolean apply) {
    GcReport report = new GcReport(cluster, group, apply);
    try {
      if (!apply) {
        collectChunks(cluster, group, expire(cluster, group, policy, false, report), null, report);
        return report;
      }
      GroupActivity activity =
          new GroupActivity(store, policy.chunkGrace(), GroupActivity.DEFAULT_SWEEP_WAIT, nanoTime);
      try (GroupActivity.Sweep sweep = activity.beginSweep(cluster, group)) {
        // Two collectors planning from listings taken on either side of a new verification record could
        // each keep a different "newest verified" generation and delete the other's: one at a time.
        Optional<GroupActivity.Activity> other = sweep.liveSweep();
        if (other.isPresent()) {
          report.otherSweep = other.get();
          return report;
        }
        // Listed after the sweep's marker and its look at the activity: a publish that ended before has
        // its manifest here, and one that starts after waits for this sweep.
        Map<GenerationId, Manifest> remaining = expire(cluster, group, policy, true, report);
        if (!policy.isEnabled()) {
          return report;
        }
        Optional<GroupActivity.Activity> publish = sweep.livePublish();
        if (publish.isPresent()) {
          report.publishInProgress = publish.get();
          return report;
        }
        sweep.deleteAbandoned();
        collectChunks(cluster, group, remaining, sweep, report);
      }
    } catch (StoreException e) {
      report.failure = e;
    }
    return report;
  }

  /**
   * Plans from the group's manifests and verification records and, with {@code apply}, deletes the
   * manifests (and their records) the plan expires; returns the manifests that remain.
   */
  private Map<GenerationId, Manifest> expire(String cluster, String group, RetentionPolicy policy, boolean apply,
      GcReport report) {
    Map<GenerationId, Manifest> manifests = readAll(cluster, group);
    Map<Candidate, GenerationId> ids = new HashMap<>();
    List<Candidate> candidates = new ArrayList<>();
    manifests.forEach((id, m) -> {
      Candidate c = new Candidate(id.index(), id.term(), m.createdAt());
      ids.put(c, id);
      candidates.add(c);
    });
    Map<GenerationId, List<VerificationMark>> verifications = VerificationRecords.all(store, cluster, group);
    Set<Candidate> verified = new HashSet<>();
    ids.forEach((c, id) -> {
      if (VerificationRecords.latestOf(verifications.get(id)).filter(VerificationMark::ok).isPresent()) {
        verified.add(c);
      }
    });
    RetentionPlan plan = RetentionPlan.of(candidates, policy, verified);
    plan.kept().forEach((c, reasons) -> report.kept.put(ids.get(c), reasons));
    if (!policy.isEnabled()) {
      return manifests;
    }
    for (Candidate c : plan.expired()) {
      GenerationId id = ids.get(c);
      if (apply) {
        store.delete(id.manifestKey());
        // the generation is gone: its verification records say nothing any more
        for (VerificationMark mark : verifications.getOrDefault(id, List.of())) {
          store.delete(mark.key());
        }
      }
      report.expiredManifests.add(id);
      manifests.remove(id);
    }
    return manifests;
  }


  /**
   * Deletes (with a sweep; without one, counts as a plan) every chunk of the group that none of the
   * manifests references, until the sweep's time is up: the rest is left for the next run.
   */
  private void collectChunks(String cluster, String group, Map<GenerationId, Manifest> manifests,
      GroupActivity.Sweep sweep, GcReport report) {
    Set<String> referenced = new HashSet<>();
    manifests.values().forEach(m -> m.files().forEach(f -> f.chunks().forEach(ch -> referenced.add(ch.sha256()))));
    for (ObjectInfo chunk : store.list(Layout.chunkPrefix(cluster, group))) {
      String sha = chunk.key().substring(chunk.key().lastIndexOf('/') + 1);
      if (referenced.contains(sha)) {
        continue;
      }
      if (sweep != null) {
        if (!sweep.timeLeft()) {
          report.chunksLeft++;
          continue;
        }
        try {
          store.delete(chunk.key());
        } catch (DeleteRefusedException refused) {
          report.refusedDeletes++;
          continue;
        }
      }
      report.deletedChunks++;
      report.deletedChunkBytes += chunk.size();
    }
  }

  /**
   * Reads and checks every manifest of the group; any defect stops the sweep. A manifest deleted since
   * the listing (by another collector running beside this one) is left out: its generation is gone.
   */
  private Map<GenerationId, Manifest> readAll(String cluster, String group) {
    String prefix = Layout.manifestPrefix(cluster, group);
    Map<GenerationId, Manifest> manifests = new LinkedHashMap<>();
    for (ObjectInfo object : store.list(prefix)) {
      GenerationId id = Layout.parseManifestKey(object.key()).orElseThrow(() -> new IntegrityException(
          "unexpected object " + object.key() + " among the manifests; garbage collection of group " + group
              + " stopped so nothing is deleted on a misunderstanding; move or delete it by hand"));
      try {
        manifests.put(id, reader.readManifest(id));
      } catch (ObjectNotFoundException e) {
        if (store.head(object.key()).isPresent()) {
          throw e;
        }
      }
    }
    return manifests;
  }

  /** What one group's garbage collection did (or, without apply, would do). */
  public static final class GcReport {
    private final String cluster;
    private final String group;
    private final boolean applied;
    private final Map<GenerationId, Set<String>> kept = new LinkedHashMap<>();
    private final List<GenerationId> expiredManifests = new ArrayList<>();
    private int deletedChunks;
    private long deletedChunkBytes;
    private GroupActivity.Activity publishInProgress;
    private GroupActivity.Activity otherSweep;
    private int chunksLeft;
    private int refusedDeletes;
    private StoreException failure;

    GcReport(String cluster, String group, boolean applied) {
      this.cluster = cluster;
      this.group = group;
      this.applied = applied;
    }

    public String cluster() {
      return cluster;
    }

    public String group() {
      return group;
    }

    /** False for a plan: nothing was deleted, the counts say what would be. */
    public boolean applied() {
      return applied;
    }

    /** Kept generations, newest first, with the rules that keep each. */
    public Map<GenerationId, Set<String>> kept() {
      return kept;
    }

    /** Generations whose manifests were (or would be) deleted, newest first. */
    public List<GenerationId> expiredManifests() {
      return expiredManifests;
    }

    public int deletedChunks() {
      return deletedChunks;
    }

    public long deletedChunkBytes() {
      return deletedChunkBytes;
    }

    /**
     * Why no chunk was deleted although the sweep ran: "a publish of the group is in progress (intent K
     * written T)"; empty otherwise. Not an error: the next run collects them.
     */
    public Optional<String> chunksKept() {
      if (otherSweep != null) {
        return Optional.of("another collection of the group is running (marker " + otherSweep.key() + " written "
            + otherSweep.written() + "); nothing was deleted, the next run collects");
      }
      return Optional.ofNullable(publishInProgress).map(p ->
          "a publish of the group is in progress (intent " + p.key() + " written " + p.written() + ")");
    }

    /** Unreferenced chunks left for the next run because half of the sweep's marker lifetime had passed. */
    public int chunksLeft() {
      return chunksLeft;
    }

    /** Deletes the store refused (object lock); skipped, not errors. */
    public int refusedDeletes() {
      return refusedDeletes;
    }

    /** Why the sweep stopped early; null if it completed. */
    public StoreException failure() {
      return failure;
    }
  }
}
