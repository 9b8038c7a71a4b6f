package dev.ratisoffload.restore;

import dev.ratisoffload.format.GenerationReader.StoredGeneration;
import dev.ratisoffload.format.GenerationReader;
import dev.ratisoffload.format.Layout;
import dev.ratisoffload.format.Manifest;
import java.util.List;
import java.util.stream.Collectors;

/** Finds the generation of a group that a {@link GenerationChoice} names, and reads its manifest. */
final class GenerationSelector {

  private final GenerationReader reader;
  private final String storeName;

  public GenerationSelector(GenerationReader reader, String storeName) {
    this.reader = reader;
    this.storeName = storeName;
  }

  /** A chosen generation and its manifest, already checked against its key. */
  public record Selected(StoredGeneration stored, Manifest manifest) {}

  /**
   * @throws MissingBackupException when the group has no generation matching the choice
   * @throws dev.ratisoffload.store.IntegrityException when a manifest read on the way is corrupt
   */
  public Selected select(String cluster, String group, GenerationChoice choice) {
    List<StoredGeneration> generations = reader.list(Layout.manifestPrefix(cluster, group));
    if (generations.isEmpty()) {
      throw new MissingBackupException("no generation of group " + group + " of cluster " + cluster
          + " is stored in " + storeName);
    }
    if (choice instanceof GenerationChoice.Newest) {
      StoredGeneration newest = generations.get(generations.size() - 1);
      return new Selected(newest, reader.readManifest(newest.id()));
    }
    if (choice instanceof GenerationChoice.AtIndex at) {
      for (StoredGeneration g : generations) {
        if (g.id().index() == at.index()) {
          return new Selected(g, reader.readManifest(g.id()));
        }
      }
      throw new MissingBackupException("group " + group + " of cluster " + cluster
          + " has no generation at index " + at.index() + " in " + storeName + "; it has "
          + describeIndexes(generations));
    }
    GenerationChoice.AtOrBefore before = (GenerationChoice.AtOrBefore) choice;
    // Newest first: a manifest is read only until one old enough is found.
    Manifest oldest = null;
    for (int i = generations.size() - 1; i >= 0; i--) {
      StoredGeneration g = generations.get(i);
      Manifest manifest = reader.readManifest(g.id());
      if (!manifest.createdAt().isAfter(before.time())) {
        return new Selected(g, manifest);
      }
      oldest = manifest;
    }
    throw new MissingBackupException("group " + group + " of cluster " + cluster
        + " has no generation created at or before " + before.time() + " in " + storeName
        + "; the oldest was created at " + oldest.createdAt());
  }

  private static String describeIndexes(List<StoredGeneration> generations) {
    int shown = Math.min(generations.size(), 10);
    String indexes = generations.subList(generations.size() - shown, generations.size()).stream()
        .map(g -> Long.toString(g.id().index()))
        .collect(Collectors.joining(", "));
    return (generations.size() > shown ? "among others " : "") + "generations at index " + indexes
        + " (see offload list)";
  }
}
