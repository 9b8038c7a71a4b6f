package dev.ratisoffload.publish;

import dev.ratisoffload.format.Layout;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import java.util.HashMap;
import java.util.Map;

/**
 * The chunks the group's store holds as the publish starts (SHA-256 to size), from one paged listing
 * of the group's chunk tree: a chunk is skipped only when it was seen stored, never because a manifest
 * names it, so a chunk deleted from the store (a lifecycle rule, a mistaken delete) is uploaded again
 * by the next publish instead of being inherited as a hole. A listing that fails fails the publish.
 */
record StoredChunks(Map<String, Long> sizes) {

  static StoredChunks list(ObjectStore store, SnapshotSource source) {
    Map<String, Long> sizes = new HashMap<>();
    for (ObjectInfo object : store.list(Layout.chunkPrefix(source.cluster(), source.group()))) {
      sizes.put(object.key().substring(object.key().lastIndexOf('/') + 1), object.size());
    }
    return new StoredChunks(sizes);
  }

  boolean contains(String sha256, int size) {
    Long stored = sizes.get(sha256);
    return stored != null && stored == size;
  }
}
