package dev.ratisoffload.format;

import dev.ratisoffload.primitives.ClusterIds;
import dev.ratisoffload.primitives.Hashes;
import dev.ratisoffload.primitives.Printable;
import java.time.Instant;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where each object of a Ratis backup lives, relative to the store's root:
 *
 * <pre>
 * ratis/manifests/&lt;cluster&gt;/&lt;group uuid&gt;/&lt;index, 19 digits&gt;-&lt;term, 19 digits&gt;.manifest
 * ratis/chunks/&lt;cluster&gt;/&lt;group uuid&gt;/&lt;first 2 hex of sha256&gt;/&lt;sha256&gt;
 * ratis/verifications/&lt;cluster&gt;/&lt;group uuid&gt;/&lt;index&gt;-&lt;term&gt;/&lt;epoch ms, 19 digits&gt;-&lt;ok|damaged&gt;-&lt;unique&gt;.verification
 * ratis/damaged/&lt;cluster&gt;/&lt;group uuid&gt;/&lt;sha256&gt;-&lt;epoch ms&gt;
 * ratis/activity/&lt;cluster&gt;/&lt;group uuid&gt;/publish-&lt;unique&gt; or sweep-&lt;unique&gt;
 * </pre>
 *
 * Manifests and chunks live in separate trees so listing generations never pages through chunks; both
 * are namespaced by cluster and group so clusters and groups sharing a bucket never collide. Zero-padded
 * numbers make key order the order of indexes. The activity tree holds the short-lived objects by which
 * a publish and a garbage collection sweep of a group see each other (see
 * {@code dev.ratisoffload.activity.GroupActivity}); listings of generations and chunks never see them.
 */
public final class Layout {

  public static final String MANIFESTS = "ratis/manifests/";
  public static final String CHUNKS = "ratis/chunks/";
  public static final String VERIFICATIONS = "ratis/verifications/";
  public static final String DAMAGED = "ratis/damaged/";
  public static final String ACTIVITY = "ratis/activity/";
  /** The name of a publish's intent starts with this, followed by a unique part. */
  public static final String PUBLISH_INTENT = "publish-";
  /** The name of a garbage collection sweep's marker starts with this, followed by a unique part. */
  public static final String SWEEP_MARKER = "sweep-";
  private static final String SUFFIX = ".manifest";
  private static final Pattern MANIFEST_KEY = Pattern.compile(
      "ratis/manifests/([^/]+)/([^/]+)/([0-9]{19})-([0-9]{19})\\.manifest");

  private static final Pattern VERIFICATION_KEY = Pattern.compile(
      "ratis/verifications/([^/]+)/([^/]+)/([0-9]{19})-([0-9]{19})/([0-9]{19})-(ok|damaged)-[0-9a-f]{8,32}\\.verification");

  private Layout() {}

  /** Where a generation is identified: cluster, group, snapshot term and index. */
  public record GenerationId(String cluster, String group, long term, long index) {
    public GenerationId {
      ClusterIds.require(cluster);
      ManifestRules.requireGroupUuid(group);
    }

    public String manifestKey() {
      return manifestPrefix(cluster, group) + String.format("%019d-%019d", index, term) + SUFFIX;
    }

    public static GenerationId of(Manifest manifest) {
      return new GenerationId(manifest.cluster(), manifest.group(), manifest.term(), manifest.index());
    }
  }

  /** The prefix under which every manifest of a cluster (or, with a group, of that group) lies. */
  public static String manifestPrefix(String cluster) {
    return MANIFESTS + ClusterIds.require(cluster) + "/";
  }

  public static String manifestPrefix(String cluster, String group) {
    return manifestPrefix(cluster) + ManifestRules.requireGroupUuid(group) + "/";
  }

  public static String chunkPrefix(String cluster, String group) {
    return CHUNKS + ClusterIds.require(cluster) + "/" + ManifestRules.requireGroupUuid(group) + "/";
  }

  /** The prefix of a group's publish intents and sweep markers. */
  public static String activityPrefix(String cluster, String group) {
    return ACTIVITY + ClusterIds.require(cluster) + "/" + ManifestRules.requireGroupUuid(group) + "/";
  }

  /**
   * The key of an activity object: {@link #PUBLISH_INTENT} or {@link #SWEEP_MARKER}, then {@code unique}
   * (1-200 of {@code [A-Za-z0-9._=-]}).
   */
  public static String activityKey(String cluster, String group, String kind, String unique) {
    if (!kind.equals(PUBLISH_INTENT) && !kind.equals(SWEEP_MARKER)) {
      throw new IllegalArgumentException("not an activity kind: " + kind);
    }
    if (!unique.matches("[A-Za-z0-9._=-]{1,200}")) {
      throw new IllegalArgumentException("invalid unique part of an activity key: " + unique);
    }
    return activityPrefix(cluster, group) + kind + unique;
  }

  public static String chunkKey(String cluster, String group, String sha256) {
    if (!Hashes.isSha256Hex(sha256)) {
      throw new IllegalArgumentException("not a SHA-256: " + Printable.excerpt(sha256));
    }
    return chunkPrefix(cluster, group) + sha256.substring(0, 2) + "/" + sha256;
  }

  /** Where the verification records of a group's generations lie. */
  public static String verificationPrefix(String cluster, String group) {
    return VERIFICATIONS + ClusterIds.require(cluster) + "/" + ManifestRules.requireGroupUuid(group) + "/";
  }

  /**
   * A verification record's key: the generation, the time and the result are in the key, so one listing
   * tells when each generation was last verified and how, without reading a record.
   */
  public static String verificationKey(GenerationId id, Instant verifiedAt, boolean ok, String unique) {
    return verificationPrefix(id.cluster(), id.group()) + String.format("%019d-%019d/%019d-%s-%s.verification",
        id.index(), id.term(), verifiedAt.toEpochMilli(), ok ? "ok" : "damaged", unique);
  }

  /** What a verification record's key says; empty for any other key. */
  public static Optional<VerificationMark> parseVerificationKey(String key) {
    Matcher m = VERIFICATION_KEY.matcher(key);
    if (!m.matches() || !ClusterIds.isValid(m.group(1))) {
      return Optional.empty();
    }
    try {
      GenerationId id = new GenerationId(m.group(1), ManifestRules.requireGroupUuid(m.group(2)),
          Long.parseLong(m.group(4)), Long.parseLong(m.group(3)));
      return Optional.of(new VerificationMark(id, Instant.ofEpochMilli(Long.parseLong(m.group(5))),
          m.group(6).equals("ok"), key));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** A verification record as its key describes it. */
  public record VerificationMark(GenerationId id, Instant verifiedAt, boolean ok, String key) {}

  /** Where a damaged chunk is kept for inspection once a scrub moved it aside. */
  public static String damagedChunkKey(String cluster, String group, String sha256, Instant movedAt) {
    if (!Hashes.isSha256Hex(sha256)) {
      throw new IllegalArgumentException("not a SHA-256: " + Printable.excerpt(sha256));
    }
    return DAMAGED + ClusterIds.require(cluster) + "/" + ManifestRules.requireGroupUuid(group) + "/"
        + sha256 + "-" + movedAt.toEpochMilli();
  }

  /** Parses a manifest key; empty for any other key (including malformed names under the tree). */
  public static Optional<GenerationId> parseManifestKey(String key) {
    Matcher m = MANIFEST_KEY.matcher(key);
    if (!m.matches() || !ClusterIds.isValid(m.group(1))) {
      return Optional.empty();
    }
    try {
      return Optional.of(new GenerationId(m.group(1), ManifestRules.requireGroupUuid(m.group(2)),
          Long.parseLong(m.group(4)), Long.parseLong(m.group(3))));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
