package dev.ratisoffload.format;

import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.Layout.VerificationMark;
import dev.ratisoffload.primitives.ClusterIds;
import dev.ratisoffload.primitives.HashedJson;
import dev.ratisoffload.primitives.Hashes;
import dev.ratisoffload.primitives.Printable;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Writes and reads verification records ({@link VerificationRecord}) in the {@link HashedJson} format,
 * with the magic {@code ratis-offload-verification}, and answers from one listing when each generation
 * of a group was last verified and with what result.
 */
public final class VerificationRecords {

  static final String MAGIC = "ratis-offload-verification";
  private static final int MAX_BYTES = 4 * 1024 * 1024;
  private static final int MAX_VERIFIED_BY = 128;
  private static final Set<String> PROBLEMS = Set.of(VerificationRecord.Damage.MISSING,
      VerificationRecord.Damage.WRONG_SIZE, VerificationRecord.Damage.WRONG_CONTENT);

  private VerificationRecords() {}

  /** Stores the record under a key of its own (put-if-absent); returns the key. */
  public static String write(ObjectStore store, VerificationRecord record) {
    byte[] unique = new byte[8];
    ThreadLocalRandom.current().nextBytes(unique);
    String key = Layout.verificationKey(record.generation(), record.verifiedAt(), record.ok(),
        HexFormat.of().formatHex(unique));
    store.putIfAbsent(key, Content.of(encode(record)));
    return key;
  }

  public static byte[] encode(VerificationRecord record) {
    check(record);
    return HashedJson.encode(MAGIC, VerificationRecord.FORMAT_VERSION, record);
  }

  /**
   * Parses and checks a record read from {@code key}, which must agree with it.
   *
   * @throws IntegrityException naming the key and what is wrong
   */
  public static VerificationRecord decode(byte[] object, String key) {
    try {
      VerificationRecord record = HashedJson.decode(object, MAGIC, VerificationRecord.FORMAT_VERSION, MAX_BYTES,
          VerificationRecord.class);
      check(record);
      VerificationMark mark = Layout.parseVerificationKey(key)
          .orElseThrow(() -> new IllegalArgumentException("its key is not a verification record's"));
      if (!mark.id().equals(record.generation()) || mark.ok() != record.ok()
          || !mark.verifiedAt().equals(record.verifiedAt())) {
        throw new IllegalArgumentException("it does not say what its key says");
      }
      return record;
    } catch (HashedJson.Defect | IllegalArgumentException e) {
      throw new IntegrityException("verification record " + key + " is corrupt: " + e.getMessage());
    }
  }

  public static VerificationRecord read(ObjectStore store, String key) {
    try (InputStream in = store.get(key)) {
      return decode(in.readNBytes(MAX_BYTES + 1), key);
    } catch (IOException e) {
      throw new dev.ratisoffload.store.StoreUnavailableException("cannot read " + key + ": " + e, e);
    }
  }

  /** Every verification record of a group's generations, from one listing, oldest first per generation. */
  public static Map<GenerationId, List<VerificationMark>> all(ObjectStore store, String cluster, String group) {
    Map<GenerationId, List<VerificationMark>> all = new HashMap<>();
    for (ObjectInfo object : store.list(Layout.verificationPrefix(cluster, group))) {
      Layout.parseVerificationKey(object.key())
          .ifPresent(mark -> all.computeIfAbsent(mark.id(), id -> new ArrayList<>()).add(mark));
    }
    all.values().forEach(marks -> marks.sort(Comparator.comparing(VerificationMark::verifiedAt)));
    return all;
  }

  /** The latest of a generation's verifications (as {@link #all} gives them); empty for none. */
  public static Optional<VerificationMark> latestOf(List<VerificationMark> marks) {
    return marks == null || marks.isEmpty() ? Optional.empty() : Optional.of(marks.get(marks.size() - 1));
  }

  /** The latest verification of each generation of a group, from one listing of its records. */
  public static Map<GenerationId, VerificationMark> latest(ObjectStore store, String cluster, String group) {
    Map<GenerationId, VerificationMark> latest = new HashMap<>();
    all(store, cluster, group).forEach((id, marks) -> latest.put(id, marks.get(marks.size() - 1)));
    return latest;
  }

  private static void check(VerificationRecord r) {
    require(r.format() == VerificationRecord.FORMAT_VERSION, "format", r.format());
    ClusterIds.require(r.cluster());
    ManifestRules.requireGroupUuid(r.group());
    require(r.term() >= 0 && r.index() >= 0, "term/index", r.term() + "/" + r.index());
    require(r.verifiedAt() != null, "verifiedAt", null);
    require(r.verifiedBy() != null && !r.verifiedBy().isBlank() && r.verifiedBy().length() <= MAX_VERIFIED_BY
        && r.verifiedBy().chars().allMatch(c -> c >= 0x20 && c < 0x7f), "verifiedBy", r.verifiedBy());
    require(r.damaged() != null, "damaged", null);
    require(r.toolVersion() != null, "toolVersion", null);
    for (VerificationRecord.Damage d : r.damaged()) {
      require(d != null && Hashes.isSha256Hex(d.sha256()) && PROBLEMS.contains(d.problem()), "damaged chunk", d);
      require(d.keptAt() == null || d.keptAt().startsWith(Layout.DAMAGED), "keptAt", d.keptAt());
    }
    boolean ok = r.damaged().isEmpty() && r.note() == null;
    require(ok ? VerificationRecord.OK.equals(r.result()) : VerificationRecord.DAMAGED.equals(r.result()),
        "result", r.result());
  }

  private static void require(boolean ok, String field, Object value) {
    if (!ok) {
      throw new IllegalArgumentException("invalid " + field + ": " + Printable.excerpt(String.valueOf(value)));
    }
  }
}
