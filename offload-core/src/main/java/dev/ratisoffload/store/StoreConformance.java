package dev.ratisoffload.store;

import dev.ratisoffload.store.ObjectStore.PutOutcome;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Checks, against a live store, the properties backups rest on ({@link ConformanceProperty}): every check
 * goes through the store's own code (and, for an S3 store, its client for what the store interface does
 * not expose), in a scratch prefix {@value #SCRATCH_ROOT}{@code <random>/} that is removed afterwards,
 * also after a failure. The command line's {@code offload store check} runs them all, the plugin's
 * start-up check {@link #STARTUP} ones.
 *
 * <p>A store that cannot be reached at all throws {@link StoreException} from the first write, so callers
 * tell "not conformant" from "not reachable".
 */
public final class StoreConformance {

  /** Where the scratch objects go, under the store's root. */
  public static final String SCRATCH_ROOT = "offload-check/";
  /** How many writers race for one key. */
  public static final int CONCURRENT_WRITERS = 8;
  /** What the plugin checks at start-up: every property publishing relies on, and delete, to clean up. */
  public static final Set<ConformanceProperty> STARTUP = EnumSet.of(ConformanceProperty.PUT_IF_ABSENT,
      ConformanceProperty.CONCURRENT_PUT_IF_ABSENT, ConformanceProperty.RANGED_READ, ConformanceProperty.LISTING, ConformanceProperty.DELETE,
      ConformanceProperty.ENCRYPTION);

  private static final int OBJECT_SIZE = 1000;
  private static final int CONFLICT_RETRIES = 3;
  private static final long CONFLICT_BACKOFF_MILLIS = 100;

  private final ObjectStore store;
  private final String scratchParent;
  private final String scratch;
  private final Optional<S3ConformanceProbes> s3;

  private StoreConformance(ObjectStore store, String scratchParent) {
    this.store = store;
    this.scratchParent = scratchParent;
    this.scratch = scratchParent + UUID.randomUUID() + "/";
    this.s3 = store instanceof S3ObjectStore s3Store ? Optional.of(new S3ConformanceProbes(s3Store))
        : Optional.empty();
  }

  /** Every property, under {@value #SCRATCH_ROOT}. */
  public static ConformanceReport check(ObjectStore store) {
    return check(store, EnumSet.allOf(ConformanceProperty.class), SCRATCH_ROOT);
  }

  /**
   * The given properties, in {@link ConformanceProperty} order.
   *
   * @param scratchParent the scratch objects go under {@code scratchParent<random>/} (a prefix ending
   *     in '/', or a key's start, such as {@code ratis/probes/cluster/peer-})
   * @throws StoreException when the store cannot be written at all (unreachable, access denied), after
   *     removing what was written
   */
  public static ConformanceReport check(ObjectStore store, Set<ConformanceProperty> properties,
      String scratchParent) {
    return new StoreConformance(store, scratchParent).run(properties);
  }

  private ConformanceReport run(Set<ConformanceProperty> properties) {
    List<ConformanceResult> results = new ArrayList<>();
    Optional<String> leftBehind;
    try {
      checkInto(results, properties);
    } finally {
      leftBehind = removeScratch();
    }
    return new ConformanceReport(store.describe(), results, leftBehind);
  }

  private void checkInto(List<ConformanceResult> results, Set<ConformanceProperty> properties) {
    String first = scratch + "first";
    // Reachability first: a store that takes no write at all is unreachable, not non-conformant,
    // unless it takes a write without the configured encryption.
    try {
      store.putIfAbsent(first, Content.of(pattern(OBJECT_SIZE, 1)));
    } catch (StoreException e) {
      Optional<ConformanceResult> refused = s3.flatMap(p -> p.encryptionRefused(scratch + "unencrypted", e));
      if (refused.isEmpty()) {
        throw e;
      }
      results.add(refused.get());
      return;
    }
    for (ConformanceProperty property : ConformanceProperty.values()) {
      if (properties.contains(property)) {
        results.add(check(property, first));
      }
    }
  }

  private ConformanceResult check(ConformanceProperty property, String first) {
    try {
      return switch (property) {
        case PUT_IF_ABSENT -> putIfAbsentRefusesAnExistingKey(first);
        case CONCURRENT_PUT_IF_ABSENT -> oneOfConcurrentWritersWins();
        case MULTIPART_PUT_IF_ABSENT -> s3.map(p -> p.multipartCompletionIsConditional(scratch + "multipart"))
            .orElseGet(() -> ConformanceResult.notApplicable(property, "not an S3 store: no multipart uploads"));
        case CHECKSUM -> mismatchingChecksumIsRefused();
        case RANGED_READ -> rangedReadsReturnTheirBytes();
        case LISTING -> listingShowsANewKey();
        case DELETE -> deleteRemoves();
        case ENCRYPTION -> s3.map(p -> p.encryptionIsApplied(first))
            .orElseGet(() -> ConformanceResult.notApplicable(property, "not an S3 store: no server-side encryption"));
      };
    } catch (StoreUnavailableException e) {
      throw e;
    } catch (StoreException | UncheckedIOException e) {
      return ConformanceResult.fails(property, "the store failed the check: " + e.getMessage());
    }
  }

  private ConformanceResult putIfAbsentRefusesAnExistingKey(String first) {
    ConformanceProperty p = ConformanceProperty.PUT_IF_ABSENT;
    try {
      PutOutcome outcome = store.putIfAbsent(first, Content.of(pattern(OBJECT_SIZE, 2)));
      return ConformanceResult.fails(p, "a write of other bytes to an existing key was " + outcome
          + (holds(first, pattern(OBJECT_SIZE, 1)) ? "" : ", and the key now holds the new bytes"));
    } catch (ObjectConflictException expected) {
      return holds(first, pattern(OBJECT_SIZE, 1))
          ? ConformanceResult.holds(p, "a write of other bytes to an existing key was refused")
          : ConformanceResult.fails(p, "the write was refused, but the key no longer holds its first bytes");
    }
  }

  private ConformanceResult oneOfConcurrentWritersWins() {
    ConformanceProperty p = ConformanceProperty.CONCURRENT_PUT_IF_ABSENT;
    String key = scratch + "concurrent";
    ExecutorService writers = Executors.newFixedThreadPool(CONCURRENT_WRITERS);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<PutOutcome>> outcomes = new ArrayList<>();
      for (int i = 0; i < CONCURRENT_WRITERS; i++) {
        byte[] bytes = pattern(OBJECT_SIZE, 10 + i);
        outcomes.add(writers.submit(() -> {
          start.await();
          return putRetryingConflicts(key, Content.of(bytes));
        }));
      }
      start.countDown();
      List<Integer> created = new ArrayList<>();
      int refused = 0;
      for (int i = 0; i < outcomes.size(); i++) {
        try {
          if (outcomes.get(i).get() == PutOutcome.CREATED) {
            created.add(i);
          }
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof ObjectConflictException)) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
          }
          refused++;
        }
      }
      if (created.size() == 1 && refused == CONCURRENT_WRITERS - 1 && holds(key, pattern(OBJECT_SIZE, 10 + created.get(0)))) {
        return ConformanceResult.holds(p, "of " + CONCURRENT_WRITERS + " writers racing on one key one won, the"
            + " others were refused");
      }
      return ConformanceResult.fails(p, "of " + CONCURRENT_WRITERS + " writers racing on one key " + created.size()
          + " were told they created it (" + refused + " refused)");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("interrupted while checking concurrent writers", e);
    } finally {
      writers.shutdownNow();
    }
  }

  /**
   * AWS S3 may answer a conditional write racing another with 409 (ConditionalRequestConflict), to be
   * retried: the retry is then refused or wins like any other writer, as a publish's retry would be.
   */
  private PutOutcome putRetryingConflicts(String key, Content content) throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        return store.putIfAbsent(key, content);
      } catch (StoreUnavailableException e) {
        if (attempt == CONFLICT_RETRIES) {
          throw e;
        }
        Thread.sleep(CONFLICT_BACKOFF_MILLIS * attempt); // let the racing write finish
      }
    }
  }

  private ConformanceResult mismatchingChecksumIsRefused() {
    ConformanceProperty p = ConformanceProperty.CHECKSUM;
    if (s3.isEmpty()) {
      return ConformanceResult.notApplicable(p, "not an S3 store: bytes go from this process to the file system,"
          + " with no checksum header");
    }
    if (s3.get().sendsNoChecksum()) {
      return ConformanceResult.notApplicable(p, "offload.s3.checksum = when_required: no checksum is sent");
    }
    String key = scratch + "checksum";
    byte[] bytes = pattern(OBJECT_SIZE, 3);
    try {
      store.putIfAbsent(key, Content.of(bytes).withSha256(sha256(pattern(OBJECT_SIZE, 4))));
      return ConformanceResult.fails(p, "a body sent with another body's SHA-256 was stored");
    } catch (IntegrityException expected) {
      return store.head(key).isPresent()
          ? ConformanceResult.fails(p, "the body was refused, but an object was left at the key")
          : ConformanceResult.holds(p, "a body sent with another body's SHA-256 was refused");
    }
  }

  private ConformanceResult rangedReadsReturnTheirBytes() {
    ConformanceProperty p = ConformanceProperty.RANGED_READ;
    String first = scratch + "ranged";
    byte[] whole = pattern(OBJECT_SIZE, 9);
    store.putIfAbsent(first, Content.of(whole));
    byte[] middle = read(store.get(first, 100, 50));
    byte[] tail = read(store.get(first, OBJECT_SIZE - 10, 50));
    if (!Arrays.equals(middle, Arrays.copyOfRange(whole, 100, 150))) {
      return ConformanceResult.fails(p, "bytes 100-149 came back as " + middle.length + " other bytes");
    }
    if (!Arrays.equals(tail, Arrays.copyOfRange(whole, OBJECT_SIZE - 10, OBJECT_SIZE))) {
      return ConformanceResult.fails(p, "a range past the end returned " + tail.length + " bytes, not the last 10");
    }
    return ConformanceResult.holds(p, "a range inside and a range past the end returned the right bytes");
  }

  private ConformanceResult listingShowsANewKey() {
    ConformanceProperty p = ConformanceProperty.LISTING;
    String key = scratch + "listed";
    store.putIfAbsent(key, Content.of(pattern(OBJECT_SIZE, 5)));
    boolean listed = store.list(scratch).stream()
        .anyMatch(o -> o.key().equals(key) && o.size() == OBJECT_SIZE);
    return listed ? ConformanceResult.holds(p, "a key just written was listed with its size")
        : ConformanceResult.fails(p, "a key just written was not listed with its size");
  }

  private ConformanceResult deleteRemoves() {
    ConformanceProperty p = ConformanceProperty.DELETE;
    String key = scratch + "deleted";
    store.putIfAbsent(key, Content.of(pattern(OBJECT_SIZE, 6)));
    try {
      store.delete(key);
    } catch (StoreAccessException e) {
      return ConformanceResult.fails(p, "delete refused: " + e.getMessage());
    }
    return store.head(key).isEmpty() ? ConformanceResult.holds(p, "an object was deleted")
        : ConformanceResult.fails(p, "a deleted object is still there");
  }

  /** Removes every scratch object; what cannot be removed is named, with why. */
  private Optional<String> removeScratch() {
    List<String> left = new ArrayList<>();
    String why = "";
    try {
      for (ObjectInfo object : store.list(scratch)) {
        try {
          store.delete(object.key());
        } catch (StoreException e) {
          left.add(object.key());
          why = e.getMessage();
        }
      }
    } catch (StoreException e) {
      return Optional.of("the scratch prefix " + scratch + " could not be listed to remove it (" + e.getMessage()
          + "); delete it by hand");
    }
    if (store instanceof DirectoryObjectStore directory) {
      removeEmptyDirectories(directory.root());
    }
    return left.isEmpty() ? Optional.empty() : Optional.of(left.size() + " scratch objects under " + scratch
        + " could not be deleted (" + why + "); delete them by hand");
  }

  /** A directory store keeps the directories of deleted objects: remove the scratch ones when empty. */
  private void removeEmptyDirectories(Path root) {
    try {
      Files.deleteIfExists(root.resolve(scratch));
      if (scratchParent.endsWith("/")) {
        Files.deleteIfExists(root.resolve(scratchParent));
      }
    } catch (IOException e) {
      // Not empty (another check running, or an object that could not be deleted): leave it.
    }
  }

  private boolean holds(String key, byte[] expected) {
    return Arrays.equals(read(store.get(key)), expected);
  }

  private static byte[] read(InputStream in) {
    try (in) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code size} bytes that differ for each seed. */
  static byte[] pattern(int size, int seed) {
    byte[] bytes = ("offload store check " + seed + " ").repeat(size / 20 + 1).getBytes(StandardCharsets.US_ASCII);
    return Arrays.copyOf(bytes, size);
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
