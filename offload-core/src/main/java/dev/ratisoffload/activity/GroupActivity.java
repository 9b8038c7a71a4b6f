package dev.ratisoffload.activity;

import dev.ratisoffload.format.Layout;
import dev.ratisoffload.store.Content;
import dev.ratisoffload.store.DeleteRefusedException;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectInfo;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreAccessException;
import dev.ratisoffload.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a publish and a garbage collection sweep of one group see each other, so that a sweep never
 * deletes a chunk a publish counts on. A store has no conditional delete; instead each side writes an
 * object into the group's activity tree ({@link Layout#activityPrefix}) before it looks at the other
 * side: a publish its intent, then waits while a sweep's marker is there, and only then lists the chunks
 * it will re-use; a sweep its marker, then deletes no chunk while a publish's intent is there. Whichever
 * lists second sees the other (docs/design.md, "Retention and garbage collection", says why that is
 * enough).
 *
 * <p>Ages are judged only between objects of one listing, by the store's clock: an object written more
 * than the chunk grace before the caller's own is abandoned (its writer died or could not delete it). So
 * that no one is judged abandoned while still acting, a publish writes its manifest, and a sweep deletes
 * chunks, only within half of the grace after it began writing its own object, by the local monotonic
 * clock.
 */
public final class GroupActivity {

  private static final Logger LOG = LoggerFactory.getLogger(GroupActivity.class);
  /** How long a publish waits for a sweep of its group to end before it fails (and the next pass retries). */
  public static final Duration DEFAULT_SWEEP_WAIT = Duration.ofMinutes(1);
  /**
   * A sweep's marker is abandoned after at most this (or the chunk grace, if shorter), so that a killed
   * collection delays a group's publishes for minutes, not for the chunk grace; a sweep deletes for at
   * most half of it and leaves the rest to its next run.
   */
  public static final Duration MAX_SWEEP_LIFETIME = Duration.ofMinutes(10);
  /**
   * The shortest safe chunk grace: ages are compared by the store's {@code lastModified}, which S3 keeps
   * to the second, and a publish or sweep needs half of it, at least, to end what it started.
   */
  public static final Duration MIN_CHUNK_GRACE = Duration.ofMinutes(1);
  /** The chunk grace when none is configured: longer than any publish of a large snapshot takes. */
  public static final Duration DEFAULT_CHUNK_GRACE = Duration.ofHours(6);
  private static final long FIRST_POLL_MILLIS = 50;
  private static final Pattern DECLARED = Pattern.compile("([0-9]{1,12})s-.+");
  private static final long LAST_POLL_MILLIS = 1_000;

  private final ObjectStore store;
  private final Duration grace;
  private final Duration sweepLifetime;
  private final Duration sweepWait;
  private final LongSupplier nanoTime;

  public GroupActivity(ObjectStore store, Duration chunkGrace) {
    this(store, chunkGrace, DEFAULT_SWEEP_WAIT, System::nanoTime);
  }

  /**
   * @param chunkGrace after this, another's intent or marker counts as abandoned; at least
   *     {@link #MIN_CHUNK_GRACE}
   * @param sweepWait how long a publish waits for running sweeps
   * @param nanoTime the local monotonic clock ({@link System#nanoTime} but in tests)
   */
  public GroupActivity(ObjectStore store, Duration chunkGrace, Duration sweepWait, LongSupplier nanoTime) {
    this.store = store;
    this.grace = requireSafeChunkGrace("chunk-grace", chunkGrace.toString(), chunkGrace);
    this.sweepLifetime = grace.compareTo(MAX_SWEEP_LIFETIME) < 0 ? grace : MAX_SWEEP_LIFETIME;
    this.sweepWait = sweepWait;
    this.nanoTime = nanoTime;
  }

  /**
   * Writes a publish's intent and waits until no sweep of the group that is not abandoned is running;
   * only then may the publish list the chunks it will count on. The caller closes the intent when the
   * publish ends, however it ends.
   *
   * @param who what the intent's body says, for an operator who finds it (peer, index)
   * @param stop checked while waiting: true ends the wait, and the caller's publish
   * @return the intent, or empty when {@code stop} ended the wait (the intent is then already removed)
   * @throws GroupActivityException when a sweep is still running after the wait (the intent is removed)
   */
  public Optional<Claim> announcePublish(String cluster, String group, String who, BooleanSupplier stop) {
    Claim intent = claim(cluster, group, Layout.PUBLISH_INTENT, who);
    try {
      long waitStarted = nanoTime.getAsLong();
      long pause = FIRST_POLL_MILLIS;
      while (true) {
        deleteLeftovers(); // the store may have come back only after the claim's try: never wait for our own
        Listing listing = list(cluster, group, intent);
        Optional<Activity> sweep = listing.live(Layout.SWEEP_MARKER).stream().findFirst();
        if (sweep.isEmpty()) {
          return Optional.of(intent);
        }
        if (stop.getAsBoolean()) {
          intent.close();
          return Optional.empty();
        }
        if (nanoTime.getAsLong() - waitStarted >= sweepWait.toNanos()) {
          throw new GroupActivityException("a garbage collection sweep of group " + group + " is running (marker "
              + sweep.get().key() + " written " + sweep.get().written() + ") and did not end within "
              + text(sweepWait) + "; a publish waits for it so that it cannot delete a chunk the publish re-uses,"
              + " and nothing of this publish was written. The next pass retries; a marker left by a killed"
              + " collection is ignored " + text(sweepLifetime) + " after it was written (or delete it by hand)");
        }
        sleep(pause, group);
        pause = Math.min(LAST_POLL_MILLIS, pause * 2);
      }
    } catch (RuntimeException e) {
      intent.close();
      throw e;
    }
  }

  /**
   * Writes a sweep's marker and lists the group's activity: the sweep may delete chunks only when the
   * result names no live publish. The caller closes the marker when the sweep ends, however it ends.
   */
  public Sweep beginSweep(String cluster, String group) {
    Claim marker = claim(cluster, group, Layout.SWEEP_MARKER, "garbage collection sweep of group " + group);
    try {
      Listing listing = list(cluster, group, marker);
      if (!listing.strangers.isEmpty()) {
        throw new IntegrityException("unexpected object " + listing.strangers.get(0) + " among the activity of"
            + " group " + group + "; garbage collection deletes no chunk of the group while it is there, so"
            + " that it cannot misread a publish in progress; move or delete it by hand");
      }
      return new Sweep(marker, listing);
    } catch (RuntimeException e) {
      marker.close();
      throw e;
    }
  }

  /**
   * This process's own intents and markers whose delete failed (a store outage as it ended), or whose
   * write failed without saying whether the store kept them, by store:
   * deleted again before its next activity there, so one that stayed does not hold the group's
   * publishes or collections off until it is abandoned. Keys are unique, so deleting one later is safe.
   */
  private static final Map<ObjectStore, Set<String>> LEFTOVERS = Collections.synchronizedMap(new WeakHashMap<>());

  private void leftover(String key) {
    LEFTOVERS.computeIfAbsent(store, s -> ConcurrentHashMap.newKeySet()).add(key);
  }

  private void deleteLeftovers() {
    Set<String> keys = LEFTOVERS.get(store);
    if (keys == null) {
      return;
    }
    for (String key : List.copyOf(keys)) {
      try {
        store.delete(key);
        keys.remove(key);
      } catch (StoreException e) {
        return; // still unreachable: the next activity tries again
      }
    }
  }

  private Claim claim(String cluster, String group, String kind, String who) {
    deleteLeftovers();
    Duration lifetime = lifetimeOf(kind);
    // The writer's own lifetime goes in the key: others judge its object by it, so a collector run with
    // another --chunk-grace than the servers' cannot take a live intent or marker for abandoned.
    String key = Layout.activityKey(cluster, group, kind, lifetime.toSeconds() + "s-" + UUID.randomUUID());
    long started = nanoTime.getAsLong();
    try {
      store.putIfAbsent(key, Content.of(who.getBytes(StandardCharsets.UTF_8)));
    } catch (StoreException e) {
      leftover(key); // the store may have kept it though the answer was lost (it went down meanwhile)
      throw e;
    }
    return new Claim(key, group, kind.equals(Layout.PUBLISH_INTENT), started, lifetime);
  }

  private Listing list(String cluster, String group, Claim own) {
    List<Activity> others = new ArrayList<>();
    List<String> strangers = new ArrayList<>();
    Instant ownWritten = null;
    for (ObjectInfo object : store.list(Layout.activityPrefix(cluster, group))) {
      String name = object.key().substring(object.key().lastIndexOf('/') + 1);
      if (object.key().equals(own.key())) {
        ownWritten = object.lastModified();
      } else if (name.startsWith(Layout.PUBLISH_INTENT) || name.startsWith(Layout.SWEEP_MARKER)) {
        String kind = name.startsWith(Layout.PUBLISH_INTENT) ? Layout.PUBLISH_INTENT : Layout.SWEEP_MARKER;
        others.add(new Activity(object.key(), kind, object.lastModified(),
            declaredLifetime(name.substring(kind.length()), kind)));
      } else {
        strangers.add(object.key());
      }
    }
    if (ownWritten == null) {
      throw new GroupActivityException("the listing of group " + group + "'s activity does not show "
          + own.key() + ", written just before it; nothing was deleted or published; the next pass (or the next"
          + " offload gc) retries");
    }
    return new Listing(others, strangers, ownWritten);
  }

  /** A duration as the keys and flags write it: {@code 90s}, {@code 15min}, {@code 6h}. */
  private static String text(Duration d) {
    long seconds = d.toSeconds();
    return seconds % 3600 == 0 && seconds > 0 ? seconds / 3600 + "h"
        : seconds % 60 == 0 && seconds > 0 ? seconds / 60 + "min" : seconds + "s";
  }

  private static void sleep(long millis, String group) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new GroupActivityException("interrupted while waiting for a garbage collection sweep of group "
          + group + " to end; nothing of this publish was written");
    }
  }

  /**
   * The one check of a chunk grace, for the plugin's key and the command line's flag alike: below
   * {@link #MIN_CHUNK_GRACE} it throws {@link IllegalArgumentException} naming {@code name} (the key or
   * flag) and {@code text} (the value as given).
   */
  public static Duration requireSafeChunkGrace(String name, String text, Duration grace) {
    if (grace.compareTo(MIN_CHUNK_GRACE) < 0) {
      throw new IllegalArgumentException("invalid " + name + " = '" + text + "': the chunk grace must be at"
          + " least 1min (default 6h), because a publish and a garbage collection sweep treat each other's"
          + " activity objects as abandoned after it, judged by the store's one-second timestamps;"
          + " nothing was changed: give 1min or more");
    }
    return grace;
  }

  /**
   * How long another's object lives, as its writer declared it in the key ({@code <seconds>s-<unique>}):
   * never less than this side's own lifetime for its kind, so neither side can cut the other's short.
   */
  private Duration declaredLifetime(String unique, String kind) {
    Duration own = lifetimeOf(kind);
    Matcher m = DECLARED.matcher(unique);
    if (!m.matches()) {
      return own;
    }
    Duration declared = Duration.ofSeconds(Long.parseLong(m.group(1))); // at most 12 digits: fits a long
    return declared.compareTo(own) > 0 ? declared : own;
  }

  /** This side's lifetime for an object of the kind: the chunk grace for an intent, else a marker's. */
  private Duration lifetimeOf(String kind) {
    return kind.equals(Layout.PUBLISH_INTENT) ? grace : sweepLifetime;
  }

  /** Another's intent or marker, as listed, with the lifetime its writer declared. */
  public record Activity(String key, String kind, Instant written, Duration lifetime) {}

  /** The others' activity, judged against the caller's own object in the same listing. */
  private final class Listing {
    private final List<Activity> others;
    /** Keys that are neither intents nor markers: a sweep will not guess what they mean. */
    private final List<String> strangers;
    private final Instant ownWritten;

    Listing(List<Activity> others, List<String> strangers, Instant ownWritten) {
      this.others = others;
      this.strangers = strangers;
      this.ownWritten = ownWritten;
    }

    boolean abandoned(Activity a) {
      return a.written().plus(a.lifetime()).isBefore(ownWritten);
    }

    List<Activity> live(String kind) {
      return others.stream().filter(a -> a.kind().equals(kind) && !abandoned(a)).toList();
    }

    List<Activity> abandoned() {
      return others.stream().filter(this::abandoned).toList();
    }
  }

  /**
   * A publish's intent or a sweep's marker: its key, when its writer began writing it, and after how
   * long others treat it as abandoned (the chunk grace for an intent, {@link #MAX_SWEEP_LIFETIME} at most
   * for a marker).
   */
  public final class Claim implements AutoCloseable {
    private final String key;
    private final String group;
    private final boolean publish;
    private final long started;
    private final Duration lifetime;

    private Claim(String key, String group, boolean publish, long started, Duration lifetime) {
      this.key = key;
      this.group = group;
      this.publish = publish;
      this.started = started;
      this.lifetime = lifetime;
    }

    public String key() {
      return key;
    }

    /**
     * Whether less than half of its lifetime has passed since its writer began writing it: after that,
     * others may soon treat it as abandoned, so its writer must not start anything the others rely on.
     */
    public boolean timeLeft() {
      return nanoTime.getAsLong() - started < lifetime.toNanos() / 2;
    }

    /**
     * Throws unless {@link #timeLeft()}: a publish calls it just before it writes its manifest.
     *
     * @throws GroupActivityException saying that no manifest is written
     */
    public void requireTimeLeft() {
      if (!timeLeft()) {
        throw new GroupActivityException("the publish of group " + group + " took "
            + text(Duration.ofNanos(nanoTime.getAsLong() - started)) + ", more than half of the chunk grace ("
            + text(grace) + ", offload.retention.chunk-grace), so a garbage collection sweep may treat its intent"
            + " as abandoned: no manifest was written (its chunks, unreferenced, may be collected); if publishes take"
            + " this long, raise the chunk grace above twice the longest");
      }
    }

    /** Removes it; a refused delete leaves it to be judged abandoned after the chunk grace. */
    @Override
    public void close() {
      try {
        store.delete(key);
      } catch (StoreException e) {
        if (!(e instanceof StoreAccessException)) {
          leftover(key);
        }
        LOG.warn("could not delete {} ({}): it stays until others treat it as abandoned, after {};"
            + " meanwhile {} of group {} {}. Deleting it needs the delete permission on ratis/activity/",
            key, e.getMessage(), text(lifetime), publish ? "garbage collection" : "every publish", group,
            publish ? "deletes no chunk" : "waits for it and fails");
      }
    }
  }

  /** A sweep that wrote its marker, and what it saw of the group's other activity. */
  public final class Sweep implements AutoCloseable {
    private final Claim marker;
    private final Listing listing;

    private Sweep(Claim marker, Listing listing) {
      this.marker = marker;
      this.listing = listing;
    }

    /** A publish of the group that is not abandoned; while there is one, the sweep deletes no chunk. */
    public Optional<Activity> livePublish() {
      return listing.live(Layout.PUBLISH_INTENT).stream().findFirst();
    }

    /** Another sweep of the group that is not abandoned; while there is one, this sweep deletes nothing. */
    public Optional<Activity> liveSweep() {
      return listing.live(Layout.SWEEP_MARKER).stream().findFirst();
    }

    /** Deletes the intents and markers it saw abandoned; a refused delete leaves one for a later sweep. */
    public void deleteAbandoned() {
      for (Activity a : listing.abandoned()) {
        try {
          store.delete(a.key());
        } catch (DeleteRefusedException refused) {
          // object lock: it stays, abandoned, and harms no one
        }
      }
    }

    /** Whether the sweep may still delete a chunk (see {@link Claim#timeLeft()}). */
    public boolean timeLeft() {
      return marker.timeLeft();
    }

    @Override
    public void close() {
      marker.close();
    }
  }
}
