package dev.ratisoffload.plugin;

import dev.ratisoffload.format.ChunkingPolicy;
import dev.ratisoffload.retention.RetentionPolicy;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreDescription;
import java.io.File;
import java.util.EnumMap;
import java.util.Map;
import org.apache.ratis.conf.RaftProperties;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * Every configuration key of the plugin, set in the same {@link RaftProperties} as Ratis's own keys,
 * in the style of Ratis's {@code RaftServerConfigKeys}: one nested class per area, each key with its
 * default and a typed getter and setter (the store's keys have one getter together,
 * {@link Store#description}). Getters throw {@link IllegalArgumentException} naming the key and the value
 * when the value cannot be parsed; nothing invalid is replaced by a default.
 */
public final class OffloadConfigKeys {

  public static final String PREFIX = "offload";

  private OffloadConfigKeys() {}

  /**
   * Where generations are stored: {@code offload.store.uri} with the {@code offload.s3.*} keys, read
   * together as one {@link StoreDescription} so they follow the rules (and messages) of the command
   * line's flags.
   */
  public static final class Store {
    /** {@code s3://bucket/prefix} or {@code file:///path}. Required. */
    public static final String URI_KEY = PREFIX + ".store.uri";

    private Store() {}

    /** The store these keys describe; an invalid value is an error naming its key. */
    public static StoreDescription description(RaftProperties properties) {
      Map<StoreDescription.Setting, String> text = new EnumMap<>(StoreDescription.Setting.class);
      for (StoreDescription.Setting setting : StoreDescription.Setting.values()) {
        text.put(setting, ConfigValues.optional(properties, key(setting)));
      }
      ConfigValues.required(properties, URI_KEY);
      return StoreDescription.parse(text, Store::key);
    }

    /** Sets the keys of this description, and clears those it leaves at their default. */
    public static void set(RaftProperties properties, StoreDescription description) {
      Map<StoreDescription.Setting, String> text = description.text();
      for (StoreDescription.Setting setting : StoreDescription.Setting.values()) {
        if (text.containsKey(setting)) {
          properties.set(key(setting), text.get(setting));
        } else {
          properties.unset(key(setting));
        }
      }
    }

    public static void setUri(RaftProperties properties, String uri) {
      properties.set(URI_KEY, uri);
    }

    /** The key of each setting of a store description. */
    public static String key(StoreDescription.Setting setting) {
      return switch (setting) {
        case URI -> URI_KEY;
        case REGION -> S3.REGION_KEY;
        case ENDPOINT -> S3.ENDPOINT_KEY;
        case PROFILE -> S3.PROFILE_KEY;
        case PATH_STYLE -> S3.PATH_STYLE_KEY;
        case SSE -> S3.SSE_KEY;
        case SSE_KMS_KEY_ID -> S3.SSE_KMS_KEY_ID_KEY;
        case CHECKSUM -> S3.CHECKSUM_KEY;
      };
    }
  }

  /** The cluster's identity, which namespaces every key it writes. */
  public static final class Cluster {
    /** 1-64 letters, digits, '.', '_' or '-'. Required: two clusters sharing a bucket must differ. */
    public static final String ID_KEY = PREFIX + ".cluster.id";

    private Cluster() {}

    public static String id(RaftProperties properties) {
      return ConfigValues.required(properties, ID_KEY);
    }

    public static void setId(RaftProperties properties, String id) {
      properties.set(ID_KEY, id);
    }
  }

  /** How to reach an S3 store; ignored for a directory store. Read by {@link Store#description}. */
  public static final class S3 {
    /** The region; default: the AWS SDK's region chain (us-east-1 with an endpoint override). */
    public static final String REGION_KEY = PREFIX + ".s3.region";
    /** An endpoint for S3-compatible servers, e.g. {@code http://127.0.0.1:9000}; default: AWS. */
    public static final String ENDPOINT_KEY = PREFIX + ".s3.endpoint";
    /** A profile of the AWS configuration files; default: the SDK's default credential chain. */
    public static final String PROFILE_KEY = PREFIX + ".s3.profile";
    /** Path-style addressing ({@code true}/{@code false}); default false; most S3-compatible servers need it. */
    public static final String PATH_STYLE_KEY = PREFIX + ".s3.path-style";
    /** Server-side encryption: {@code none} (the default: the bucket's), {@code AES256} or {@code aws:kms}. */
    public static final String SSE_KEY = PREFIX + ".s3.sse";
    /** The KMS key for {@code aws:kms}; default: the account's S3 key. */
    public static final String SSE_KMS_KEY_ID_KEY = PREFIX + ".s3.sse.kms-key-id";
    /** {@code when_supported} (the default) or {@code when_required}, for stores that reject checksum headers. */
    public static final String CHECKSUM_KEY = PREFIX + ".s3.checksum";

    private S3() {}

    public static void setRegion(RaftProperties p, String region) {
      p.set(REGION_KEY, region);
    }

    public static void setEndpoint(RaftProperties p, String endpoint) {
      p.set(ENDPOINT_KEY, endpoint);
    }

    public static void setProfile(RaftProperties p, String profile) {
      p.set(PROFILE_KEY, profile);
    }

    public static void setPathStyle(RaftProperties p, boolean pathStyle) {
      p.set(PATH_STYLE_KEY, Boolean.toString(pathStyle));
    }

    public static void setSse(RaftProperties p, S3Settings.Encryption sse) {
      p.set(SSE_KEY, sse.word());
    }

    public static void setSseKmsKeyId(RaftProperties p, String keyId) {
      p.set(SSE_KMS_KEY_ID_KEY, keyId);
    }

    public static void setChecksum(RaftProperties p, S3Settings.ChecksumMode mode) {
      p.set(CHECKSUM_KEY, mode.word());
    }
  }

  /** Where snapshot files are pinned (hard-linked) while they are read. */
  public static final class Spool {
    /**
     * A directory on the same volume as the Ratis storage, so pins are hard links, not copies.
     * Default: {@code offload-spool} inside each group's directory.
     */
    public static final String DIR_KEY = PREFIX + ".spool.dir";

    private Spool() {}

    public static File dir(RaftProperties p) {
      String value = ConfigValues.optional(p, DIR_KEY);
      if (value != null && !new File(value).isAbsolute()) {
        throw ConfigValues.invalid(DIR_KEY, value, "expected an absolute path");
      }
      return value == null ? null : new File(value);
    }

    public static void setDir(RaftProperties p, File dir) {
      p.set(DIR_KEY, dir.getAbsolutePath());
    }
  }

  /** How snapshot files are cut into chunks and uploaded. */
  public static final class Upload {
    /**
     * The average chunk size, a power of two between 64 bytes and 16 MiB (e.g. {@code 1MB}); chunks
     * range from a quarter to four times it. Smaller chunks de-duplicate finer at more requests.
     */
    public static final String CHUNK_SIZE_KEY = PREFIX + ".upload.chunk-size";
    public static final SizeInBytes CHUNK_SIZE_DEFAULT = SizeInBytes.valueOf("1MB");
    /**
     * Chunk uploads running at once on this peer, shared by every group publishing there. It also sets
     * the memory bound: each publish holds at most {@code 2 × parallelism + 2} chunks in memory.
     */
    public static final String PARALLELISM_KEY = PREFIX + ".upload.parallelism";
    public static final int PARALLELISM_DEFAULT = 8;
    /**
     * The most bytes per second this peer's publishing reads from snapshots, shared by every group
     * publishing on the peer at once (e.g. {@code 64MB}); {@code 0} for no limit. Reading paces the
     * chunking, hashing and uploading of what is read, so this bounds the CPU and network a publish
     * takes away from Raft: a publish takes longer instead.
     */
    public static final String BANDWIDTH_KEY = PREFIX + ".upload.bandwidth";
    public static final SizeInBytes BANDWIDTH_DEFAULT = SizeInBytes.valueOf("64MB");

    private Upload() {}

    public static ChunkingPolicy chunking(RaftProperties p) {
      long size = ConfigValues.size(p, CHUNK_SIZE_KEY, CHUNK_SIZE_DEFAULT);
      if (size < 64 || size > 16L * 1024 * 1024 || Long.bitCount(size) != 1) {
        throw ConfigValues.invalid(CHUNK_SIZE_KEY, p.get(CHUNK_SIZE_KEY),
            "expected a power of two between 64 and 16MB");
      }
      return ChunkingPolicy.ofAverage((int) size);
    }

    public static void setChunkSize(RaftProperties p, SizeInBytes size) {
      p.set(CHUNK_SIZE_KEY, size.getInput());
    }

    public static int parallelism(RaftProperties p) {
      return ConfigValues.positiveInt(p, PARALLELISM_KEY, PARALLELISM_DEFAULT);
    }

    public static void setParallelism(RaftProperties p, int parallelism) {
      p.setInt(PARALLELISM_KEY, parallelism);
    }

    /** The budget in bytes per second; 0 means no limit. */
    public static long bandwidth(RaftProperties p) {
      return ConfigValues.bandwidth(p, BANDWIDTH_KEY, BANDWIDTH_DEFAULT);
    }

    /** Sets the budget; {@code 0} for no limit. */
    public static void setBandwidth(RaftProperties p, SizeInBytes bytesPerSecond) {
      p.set(BANDWIDTH_KEY, bytesPerSecond.getInput());
    }
  }

  /**
   * Background verification of stored generations: the leader of each group re-reads every chunk of
   * the group's newest generation once per interval, records the result beside the generation, moves
   * damaged chunks aside and publishes the group again so they are stored again.
   */
  public static final class Scrub {
    /**
     * How often each group's newest generation is verified, e.g. {@code 24h}: a scrub runs in the
     * group's pass when the group's latest verification record is older than this; {@code 0} disables.
     */
    public static final String INTERVAL_KEY = PREFIX + ".scrub.interval";
    public static final TimeDuration INTERVAL_DEFAULT = TimeDuration.valueOf(24, TimeUnit.HOURS);
    /**
     * The most bytes per second this peer's scrubs read from the store, all groups together, e.g.
     * {@code 16MB}; {@code 0} for no limit.
     */
    public static final String BANDWIDTH_KEY = PREFIX + ".scrub.bandwidth";
    public static final SizeInBytes BANDWIDTH_DEFAULT = SizeInBytes.valueOf("16MB");

    private Scrub() {}

    /** The interval; zero when scrubbing is disabled. */
    public static TimeDuration interval(RaftProperties p) {
      return ConfigValues.nonNegativeDuration(p, INTERVAL_KEY, INTERVAL_DEFAULT);
    }

    public static void setInterval(RaftProperties p, TimeDuration interval) {
      p.set(INTERVAL_KEY, interval.toString());
    }

    /** The budget in bytes per second; 0 means no limit. */
    public static long bandwidth(RaftProperties p) {
      return ConfigValues.bandwidth(p, BANDWIDTH_KEY, BANDWIDTH_DEFAULT);
    }

    public static void setBandwidth(RaftProperties p, SizeInBytes bytesPerSecond) {
      p.set(BANDWIDTH_KEY, bytesPerSecond.getInput());
    }
  }

  /** When and how many groups are published. */
  public static final class Schedule {
    /** Time between two publish passes of a group, e.g. {@code 15min}; positive. */
    public static final String INTERVAL_KEY = PREFIX + ".schedule.interval";
    public static final TimeDuration INTERVAL_DEFAULT = TimeDuration.valueOf(1, TimeUnit.HOURS);
    /**
     * Random spread added to each group's passes so groups and nodes do not hit the store at once;
     * default a quarter of the configured interval; 0 disables; at most the interval.
     */
    public static final String JITTER_KEY = PREFIX + ".schedule.jitter";
    /** Publishes (and garbage collections) running at once on this server, all groups together. */
    public static final String CONCURRENCY_KEY = PREFIX + ".schedule.concurrency";
    public static final int CONCURRENCY_DEFAULT = 2;

    private Schedule() {}

    public static TimeDuration interval(RaftProperties p) {
      TimeDuration interval = ConfigValues.duration(p, INTERVAL_KEY, INTERVAL_DEFAULT);
      if (interval.isNegative() || interval.toLong(TimeUnit.MILLISECONDS) <= 0) {
        throw ConfigValues.invalid(INTERVAL_KEY, p.get(INTERVAL_KEY), "expected a positive duration");
      }
      return interval;
    }

    public static void setInterval(RaftProperties p, TimeDuration interval) {
      p.set(INTERVAL_KEY, interval.toString());
    }

    public static TimeDuration jitter(RaftProperties p) {
      TimeDuration interval = interval(p);
      TimeDuration jitter = ConfigValues.duration(p, JITTER_KEY,
          TimeDuration.valueOf(interval.toLong(TimeUnit.MILLISECONDS) / 4, TimeUnit.MILLISECONDS));
      if (jitter.isNegative()) {
        throw ConfigValues.invalid(JITTER_KEY, p.get(JITTER_KEY), "expected 0 or a positive duration");
      }
      if (jitter.compareTo(interval) > 0) {
        throw ConfigValues.invalid(JITTER_KEY, p.get(JITTER_KEY),
            "the jitter may not exceed " + INTERVAL_KEY + " (" + interval + ")");
      }
      return jitter;
    }

    public static void setJitter(RaftProperties p, TimeDuration jitter) {
      p.set(JITTER_KEY, jitter.toString());
    }

    public static int concurrency(RaftProperties p) {
      return ConfigValues.positiveInt(p, CONCURRENCY_KEY, CONCURRENCY_DEFAULT);
    }

    public static void setConcurrency(RaftProperties p, int concurrency) {
      p.setInt(CONCURRENCY_KEY, concurrency);
    }
  }

  /** The check at {@code attach} that the store is reachable and writable. */
  public static final class Preflight {
    /**
     * {@code true}: {@code attach} fails when the store cannot be written. Default {@code false}: it logs
     * an error, sets {@code ratis_offload_store_up} to 0 and keeps trying on schedule.
     */
    public static final String REQUIRED_KEY = PREFIX + ".preflight.required";
    public static final boolean REQUIRED_DEFAULT = false;

    private Preflight() {}

    public static boolean required(RaftProperties p) {
      return ConfigValues.bool(p, REQUIRED_KEY, REQUIRED_DEFAULT);
    }

    public static void setRequired(RaftProperties p, boolean required) {
      p.set(REQUIRED_KEY, Boolean.toString(required));
    }
  }

  /** Asking Ratis for fresh snapshots, so a backup's age is bounded by the interval. */
  public static final class Snapshot {
    /**
     * Before a publish, the leader asks Ratis for a new snapshot when the applied index is at least this
     * many entries past the newest snapshot; 0 (the default) leaves snapshots to Ratis's own settings.
     */
    public static final String TRIGGER_GAP_KEY = PREFIX + ".snapshot.trigger-gap";
    public static final long TRIGGER_GAP_DEFAULT = 0;

    private Snapshot() {}

    public static long triggerGap(RaftProperties p) {
      String value = ConfigValues.optional(p, TRIGGER_GAP_KEY);
      if (value == null) {
        return TRIGGER_GAP_DEFAULT;
      }
      try {
        long gap = Long.parseLong(value);
        if (gap >= 0) {
          return gap;
        }
      } catch (NumberFormatException ignored) {
        // reported below
      }
      throw ConfigValues.invalid(TRIGGER_GAP_KEY, value, "expected 0 (off) or a positive number of entries");
    }

    public static void setTriggerGap(RaftProperties p, long gap) {
      p.setLong(TRIGGER_GAP_KEY, gap);
    }
  }

  /**
   * Which generations to keep; the leader of each group applies it after each successful publish. A
   * generation is kept if any rule keeps it, and the newest is always kept. With no rule set (the
   * default) nothing is ever deleted.
   */
  public static final class Retention {
    /** Keep the newest N generations; 0 (default) disables the rule. */
    public static final String KEEP_LAST_KEY = PREFIX + ".retention.keep-last";
    /** Keep every generation created within this duration before the newest, e.g. {@code 7d}... */
    public static final String KEEP_WITHIN_KEY = PREFIX + ".retention.keep-within";
    /** Keep the newest generation of each of the N most recent hours that have one. */
    public static final String KEEP_HOURLY_KEY = PREFIX + ".retention.keep-hourly";
    /** Likewise per day (UTC). */
    public static final String KEEP_DAILY_KEY = PREFIX + ".retention.keep-daily";
    /** Likewise per ISO week (UTC). */
    public static final String KEEP_WEEKLY_KEY = PREFIX + ".retention.keep-weekly";
    /** Likewise per month (UTC). */
    public static final String KEEP_MONTHLY_KEY = PREFIX + ".retention.keep-monthly";
    /**
     * How long a publish or a garbage collection sweep may take before the other treats its intent or
     * marker as abandoned; at least 1min, and above twice the longest publish (a publish that takes longer
     * than half of it writes no manifest). Default 6h.
     */
    public static final String CHUNK_GRACE_KEY = PREFIX + ".retention.chunk-grace";

    private Retention() {}

    public static RetentionPolicy policy(RaftProperties p) {
      return new RetentionPolicy(
          ConfigValues.nonNegativeInt(p, KEEP_LAST_KEY),
          toDuration(ConfigValues.nonNegativeDuration(p, KEEP_WITHIN_KEY, TimeDuration.ZERO)),
          ConfigValues.nonNegativeInt(p, KEEP_HOURLY_KEY),
          ConfigValues.nonNegativeInt(p, KEEP_DAILY_KEY),
          ConfigValues.nonNegativeInt(p, KEEP_WEEKLY_KEY),
          ConfigValues.nonNegativeInt(p, KEEP_MONTHLY_KEY),
          chunkGrace(p));
    }

    /** The chunk grace, checked by the rule {@code offload gc --chunk-grace} shares. */
    private static java.time.Duration chunkGrace(RaftProperties p) {
      java.time.Duration grace = toDuration(ConfigValues.duration(p, CHUNK_GRACE_KEY,
          TimeDuration.valueOf(RetentionPolicy.DEFAULT_CHUNK_GRACE.toMillis(), TimeUnit.MILLISECONDS)));
      return RetentionPolicy.requireSafeChunkGrace(CHUNK_GRACE_KEY, p.get(CHUNK_GRACE_KEY), grace);
    }

    public static void setKeepLast(RaftProperties p, int n) {
      p.setInt(KEEP_LAST_KEY, n);
    }

    public static void setChunkGrace(RaftProperties p, TimeDuration grace) {
      p.set(CHUNK_GRACE_KEY, grace.toString());
    }

    private static java.time.Duration toDuration(TimeDuration d) {
      return java.time.Duration.ofNanos(d.toLong(TimeUnit.NANOSECONDS));
    }
  }
}
