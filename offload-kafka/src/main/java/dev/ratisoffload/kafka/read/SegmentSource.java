package dev.ratisoffload.kafka.read;

import dev.ratisoffload.kafka.format.ChainStartMarker;
import dev.ratisoffload.kafka.format.CorruptSegmentException;
import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.KafkaLayout.ChainStartKey;
import dev.ratisoffload.kafka.format.KafkaLayout.ManifestKey;
import dev.ratisoffload.kafka.format.SegmentEntry;
import dev.ratisoffload.kafka.format.SegmentHeader;
import dev.ratisoffload.kafka.format.SegmentReader;
import dev.ratisoffload.kafka.format.TopicManifest;
import dev.ratisoffload.kafka.format.TopicManifestCodec;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectNotFoundException;
import dev.ratisoffload.store.ObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * Reads segments and topic manifests from a store, checking that each is the object its key names:
 * a segment's header must state the topic id, partition and offset range of its key, and its size the
 * listed size; a manifest must name the cluster, topic and topic id of its key.
 */
public final class SegmentSource {

  private final ObjectStore store;

  public SegmentSource(ObjectStore store) {
    this.store = store;
  }

  public ObjectStore store() {
    return store;
  }

  /**
   * Opens a segment for streaming; the header is read and checked against the key. The caller closes
   * the reader; the body is verified when {@link SegmentReader#next()} reaches the end.
   */
  public SegmentReader open(StoredSegment segment) {
    InputStream in;
    try {
      in = store.get(segment.key());
    } catch (ObjectNotFoundException e) {
      throw gone(segment);
    }
    return checked(segment, SegmentReader.open(in, segment.key()));
  }

  private static CorruptSegmentException gone(StoredSegment segment) {
    return new CorruptSegmentException(segment.key(), "it was listed but is gone (deleted while being read?)");
  }

  private static SegmentReader checked(StoredSegment segment, SegmentReader reader) {
    try {
      check(segment, reader.header());
    } catch (RuntimeException e) {
      reader.close();
      throw e;
    }
    return reader;
  }

  /** Reads and checks only the header (a ranged read of {@value SegmentHeader#LENGTH} bytes). */
  public SegmentHeader readHeader(StoredSegment segment) {
    byte[] bytes;
    try (InputStream in = store.get(segment.key(), 0, SegmentHeader.LENGTH)) {
      bytes = in.readNBytes(SegmentHeader.LENGTH);
    } catch (ObjectNotFoundException e) {
      throw gone(segment);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + segment.key() + " from " + store.describe(), e);
    }
    SegmentHeader header = SegmentHeader.decode(bytes, segment.key());
    check(segment, header);
    return header;
  }

  /** Reads the whole segment, verifying everything, and returns its header. */
  public SegmentHeader verify(StoredSegment segment) {
    try (SegmentReader reader = open(segment)) {
      while (reader.nextOutline() != null) {
        // every entry is checked as it is read; the hash at the end
      }
      return reader.header();
    }
  }

  /** Reads and verifies a whole segment into memory (segments are bounded, but prefer streaming). */
  public List<SegmentEntry> readAll(StoredSegment segment) {
    try (SegmentReader reader = open(segment)) {
      return reader.readAll();
    }
  }

  /**
   * The newest manifest version stored for a topic incarnation, from a listing of its manifests alone
   * (not its segments): cheap enough for a follower to ask while it runs.
   */
  public Optional<ManifestKey> newestManifest(String cluster, String topic, Uuid topicId) {
    return store.list(KafkaLayout.manifestPrefix(cluster, topic, topicId)).stream()
        .map(ObjectInfo::key)
        .map(KafkaLayout::parseManifestKey)
        .flatMap(Optional::stream)
        .max(Comparator.comparingInt(ManifestKey::version));
  }

  /** Reads a topic manifest and checks it names what its key names. */
  public TopicManifest readManifest(ManifestKey key) {
    byte[] bytes = readSmall("topic manifest", key.key(), TopicManifestCodec.MAX_BYTES);
    TopicManifest manifest = TopicManifestCodec.decode(bytes, key.key());
    if (!manifest.cluster().equals(key.cluster()) || !manifest.topic().equals(key.topic())
        || !manifest.topicId().equals(key.topicId().toString())) {
      throw new IntegrityException("topic manifest " + key.key() + " is corrupt: it describes cluster "
          + manifest.cluster() + " topic " + manifest.topic() + " id " + manifest.topicId()
          + ", not what its key names");
    }
    return manifest;
  }

  /** Reads a chain-start marker and checks it names the offset its key names. */
  public ChainStartMarker readChainStart(ChainStartKey key) {
    return ChainStartMarker.decode(readSmall("chain-start marker", key.key(), ChainStartMarker.MAX_BYTES), key);
  }

  /** At most {@code max + 1} bytes of a listed object, so the decoder sees one that is too big. */
  private byte[] readSmall(String what, String key, int max) {
    try (InputStream in = store.get(key)) {
      return in.readNBytes(max + 1);
    } catch (ObjectNotFoundException e) {
      throw new IntegrityException(what + " " + key + " was listed but is gone");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + key + " from " + store.describe(), e);
    }
  }

  private static void check(StoredSegment segment, SegmentHeader header) {
    String mismatch = segment.id().mismatch(header);
    if (mismatch != null) {
      throw new CorruptSegmentException(segment.key(), mismatch);
    }
    if (segment.size() != header.objectSize()) {
      throw new CorruptSegmentException(segment.key(), "it has " + segment.size() + " bytes, its header says "
          + header.objectSize());
    }
  }
}
