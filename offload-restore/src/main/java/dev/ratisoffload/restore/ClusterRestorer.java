package dev.ratisoffload.restore;

import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Restores groups of a cluster from a store into one peer's Ratis storage directory.
 *
 * <p>{@link #plan} reads and checks every manifest before anything is written. {@link #restore} then
 * stages every group (each byte verified on the way), and only when all are complete renames them into
 * place: a failure at any point before leaves no group directory, and a kill leaves at most hidden
 * staging directories, which the next restore removes.
 *
 * <pre>{@code
 * ClusterRestorer restorer = new ClusterRestorer(store);
 * RestorePlan plan = restorer.plan(new RestoreRequest("orders-prod", List.of(),
 *     new GenerationChoice.Newest(), Map.of(), Path.of("/var/lib/ratis/n1")));
 * restorer.restore(plan, TransferListener.NONE);   // then start the peer with StartupOption.RECOVER
 * }</pre>
 */
public final class ClusterRestorer {

  /** Kept free beyond the snapshot's bytes, for the small files a restore writes and for Ratis. */
  private static final long SPACE_MARGIN = 16L * 1024 * 1024;

  private final ObjectStore store;
  private final GenerationReader reader;
  private final GenerationSelector selector;
  private final ChunkMemory memory;

  public ClusterRestorer(ObjectStore store) {
    this(store, ChunkMemory.ofThisJvm());
  }

  /** With another heap budget than this JVM's: for tests of a small heap. */
  public ClusterRestorer(ObjectStore store, ChunkMemory memory) {
    this.store = store;
    this.memory = memory;
    this.reader = new GenerationReader(store);
    this.selector = new GenerationSelector(reader, store.describe());
  }

  /**
   * Chooses each group's generation, reads its manifest and keeps the groups that belong in the request's
   * peer's directory ({@link PeerSelection}); writes nothing.
   *
   * @throws MissingBackupException when the cluster or a group has no matching generation
   * @throws IntegrityException when a manifest is corrupt or disagrees with where it was found
   * @throws InvalidRestoreRequestException when the data directory is blank or a group directory, when
   *     {@code --peers} does not fit the groups' peers, when the peer holds no chosen group, or, without a
   *     peer, when the groups live on different peers
   * @throws dev.ratisoffload.store.StoreException when the store fails
   */
  public RestorePlan plan(RestoreRequest request) {
    return PeerSelection.select(choose(request), request.peer());
  }

  /**
   * Chooses each group's generation and reads its manifest, for every chosen group whichever peers it
   * lives on (a caller restoring several peers narrows it with {@link PeerSelection#forPeer}); writes
   * nothing. Throws as {@link #plan} does, but never for the groups' peers.
   */
  public RestorePlan choose(RestoreRequest request) {
    DataDirectory.requireStorageDirectory(request.dataDir());
    List<String> groups = request.groups().isEmpty() ? groupsOf(request.cluster()) : request.groups();
    List<GroupPlan> plans = new ArrayList<>();
    Set<String> peerIds = new HashSet<>();
    for (String group : new LinkedHashSet<>(groups)) {
      GenerationSelector.Selected selected = selector.select(request.cluster(), group, request.choice());
      Manifest manifest = selected.manifest();
      requireNamed(manifest, request.cluster(), group);
      manifest.peers().forEach(p -> peerIds.add(p.id()));
      plans.add(new GroupPlan(selected.stored().id(), manifest,
          PeerAddresses.apply(group, manifest.peers(), request.peerAddresses()),
          manifest.publisher().leaderTerm()));
    }
    for (String id : request.peerAddresses().keySet()) {
      if (!peerIds.contains(id)) {
        throw new InvalidRestoreRequestException("--peers names peer " + id + ", which no restored group"
            + " has; nothing was written. The groups' peers are " + String.join(", ", peerIds));
      }
    }
    return new RestorePlan(request, plans);
  }

  /**
   * Writes every planned group into the data directory, all or (until the final renames) nothing.
   *
   * @throws HeapTooSmallException before anything is written, when this JVM's heap cannot hold the
   *     chunks of a group ({@link ChunkMemory})
   * @throws TargetRefusedException when a group directory exists, the directory belongs to another
   *     cluster, another restore holds it, or it cannot be written
   * @throws IntegrityException when stored data is corrupt; nothing is left in place
   * @throws dev.ratisoffload.store.StoreException when the store fails; nothing is left in place
   */
  public List<RestoredGroup> restore(RestorePlan plan, TransferListener listener) {
    RestoreRequest request = plan.request();
    check(plan);
    try (DataDirectory directory = DataDirectory.open(request.dataDir())) {
      directory.requireOwnedBy(request.cluster()); // check() refused existing groups; commit() checks again
      requireSpace(directory.root(), plan.totalBytes());
      Map<GroupPlan, Path> staged = new LinkedHashMap<>();
      boolean complete = false;
      listener.started(plan.totalBytes());
      try (ChunkPipeline chunks = new ChunkPipeline(store, ChunkPipeline.DEFAULT_PARALLELISM, memory)) {
        GroupStager stager = new GroupStager(chunks);
        for (GroupPlan group : plan.groups()) {
          Path staging = directory.newStagingDirectory(group.group());
          staged.put(group, staging);
          stager.stage(staging, group, listener);
        }
        directory.claimFor(request.cluster());
        complete = true;
      } catch (IOException e) {
        throw new TargetRefusedException("cannot write into " + directory.root() + ": " + e
            + "; nothing was restored (staged files were removed). Free space or fix permissions, then"
            + " run the restore again", e);
      } finally {
        listener.finished();
        if (!complete) {
          staged.values().forEach(directory::discard);
        }
      }
      return commitAll(directory, staged);
    }
  }

  /**
   * Refuses, writing nothing, what {@link #restore} would refuse about its target before it writes: a blank
   * or group data directory, a heap too small for a group's chunks, a group directory that exists. A
   * caller restoring several peers checks every peer's plan first, so one bad target stops them all.
   *
   * @throws InvalidRestoreRequestException when the data directory is blank or a group directory
   * @throws HeapTooSmallException when this JVM's heap cannot hold the chunks of a group
   * @throws TargetRefusedException when a group directory exists
   */
  public void check(RestorePlan plan) {
    Path dataDir = plan.request().dataDir();
    DataDirectory.requireStorageDirectory(dataDir);
    for (GroupPlan group : plan.groups()) {
      memory.readsInFlight(group.manifest(), ChunkPipeline.DEFAULT_PARALLELISM);
      DataDirectory.requireAbsent(dataDir, group.group());
    }
  }

  private static List<RestoredGroup> commitAll(DataDirectory directory, Map<GroupPlan, Path> staged) {
    List<RestoredGroup> restored = new ArrayList<>();
    for (Map.Entry<GroupPlan, Path> entry : staged.entrySet()) {
      try {
        restored.add(new RestoredGroup(entry.getKey(),
            directory.commit(entry.getValue(), entry.getKey().group())));
      } catch (IOException | RuntimeException e) {
        staged.values().forEach(directory::discard);
        String done = restored.isEmpty() ? "no group was restored"
            : "groups " + String.join(", ", restored.stream().map(r -> r.plan().group()).toList())
                + " were restored completely, the others not at all";
        throw new TargetRefusedException("cannot move group " + entry.getKey().group() + " into place in "
            + directory.root() + ": " + e.getMessage() + "; " + done + ". Fix the cause, then restore the"
            + " missing groups with --group", e);
      }
    }
    return restored;
  }

  /** The groups that have at least one generation, in UUID order. */
  private List<String> groupsOf(String cluster) {
    List<String> groups = reader.list(Layout.manifestPrefix(cluster)).stream()
        .map(g -> g.id().group()).distinct().toList();
    if (groups.isEmpty()) {
      throw new MissingBackupException("no generation of cluster " + cluster + " is stored in "
          + store.describe() + " (check --store and --cluster; offload list shows what is stored)");
    }
    return groups;
  }

  /** Never true after {@link GenerationReader#readManifest}; checked again because it guards a disk. */
  private static void requireNamed(Manifest manifest, String cluster, String group) {
    if (!manifest.cluster().equals(cluster) || !manifest.group().equals(group)) {
      throw new TargetRefusedException("the generation found for group " + group + " of cluster "
          + cluster + " belongs to group " + manifest.group() + " of cluster " + manifest.cluster()
          + "; nothing was written");
    }
  }

  private static void requireSpace(Path root, long bytes) {
    long usable;
    try {
      usable = Files.getFileStore(root).getUsableSpace();
    } catch (IOException e) {
      return; // unknown: the writes themselves will tell
    }
    if (usable < bytes + SPACE_MARGIN) {
      throw new TargetRefusedException(root + " has " + usable + " bytes free, the restore needs "
          + (bytes + SPACE_MARGIN) + "; nothing was written. Free space or restore onto a larger volume");
    }
  }
}
