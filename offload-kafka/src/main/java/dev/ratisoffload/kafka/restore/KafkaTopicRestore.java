package dev.ratisoffload.kafka.restore;

import dev.ratisoffload.kafka.FollowerPacing;
import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import dev.ratisoffload.kafka.format.KafkaLayout.ManifestKey;
import dev.ratisoffload.kafka.format.OffsetMap;
import dev.ratisoffload.kafka.format.TopicManifest;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.OffsetRange;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.kafka.read.TopicIncarnation;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongUnaryOperator;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restores one backed-up topic into a topic of a Kafka cluster: once (every record, fast, after a
 * verify pass and the target's checks), or following a backup that is still being written (a standby).
 *
 * <p>One-shot: every segment to restore is read and verified (hashes, joins, links) first; the target
 * must exist (or {@code createTopic}), be empty, and be able to keep the records (timestamp type,
 * retention, size limits); only then is anything sent. Every delivery report is checked against the
 * offset the record was sent for, and the high watermarks against the counts at the end.
 *
 * <p>Follow: keeps no state of its own. Each partition continues at the target's high watermark once
 * the target's last record is proven equal to the backup's record at that position; new segments must
 * continue the chain, and partitions the source gains are followed too. Only a transient failure is
 * retried with backoff (1 s doubling to 60 s), resuming at the high watermark once nothing sent is in
 * flight; one idempotent producer serves the follower's whole life, so no record is written twice.
 * {@link #requestStop()} ends it within 2 s.
 */
public final class KafkaTopicRestore {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaTopicRestore.class);
  private static final int DEFAULT_MAX_RECORD_BYTES = 1024 * 1024;
  /** How long a stopped follower waits for the broker to acknowledge what is in flight. */
  private static final Duration STOP_CLOSE = Duration.ofMillis(500);
  /** Follow mode: how often the newest manifest is read again, to see partitions the source gained. */
  private static final Duration MANIFEST_RECHECK = Duration.ofSeconds(5);

  private final RestoreSettings settings;
  private final ObjectStore store;
  private final SegmentSource source;
  private final RestoreListener listener;
  private final Clock clock;
  private final FollowerPacing pacing = new FollowerPacing();

  public KafkaTopicRestore(RestoreSettings settings, ObjectStore store, RestoreListener listener) {
    this(settings, store, listener, Clock.systemUTC());
  }

  KafkaTopicRestore(RestoreSettings settings, ObjectStore store, RestoreListener listener, Clock clock) {
    this.settings = settings;
    this.store = store;
    this.source = new SegmentSource(store);
    this.listener = listener;
    this.clock = clock;
  }

  /**
   * Asks a following restore to stop (from any thread, a signal handler too); it returns within about
   * a second whatever it waits for ({@link FollowerPacing}).
   */
  public void requestStop() {
    pacing.requestStop();
  }

  /**
   * Runs the restore.
   *
   * @throws KafkaOffloadException saying what kind of failure it was
   * @throws IntegrityException when the backup is corrupt or its chain broken
   */
  public RestoreSummary run() {
    long start = System.nanoTime();
    if (!settings.follow()) {
      return oneShot(start);
    }
    pacing.enter();
    try {
      return follow(start);
    } finally {
      pacing.exit();
    }
  }

  /** The backup being restored: one topic incarnation, its newest manifest, the partitions to restore. */
  private record Backup(TopicIncarnation incarnation, ManifestKey manifestKey, TopicManifest manifest,
      List<Integer> partitions) {}

  private Backup resolve() {
    KafkaBackupCatalog catalog = KafkaBackupCatalog.scan(store, settings.cluster(), settings.topic());
    List<TopicIncarnation> all = catalog.incarnations(settings.topic());
    if (all.isEmpty()) {
      throw new KafkaOffloadException(Kind.INCONSISTENT, "no backup of topic " + settings.topic() + " of cluster "
          + settings.cluster() + " is stored in " + store.describe() + "; nothing was written (`offload kafka list`"
          + " shows what is stored)");
    }
    List<String> ids = all.stream().map(i -> i.topicId().toString()).toList();
    TopicIncarnation chosen;
    if (settings.topicId().isPresent()) {
      chosen = all.stream().filter(i -> i.topicId().equals(settings.topicId().get())).findFirst()
          .orElseThrow(() -> new KafkaOffloadException(Kind.INVALID, "the store holds no backup of topic "
              + settings.topic() + " with topic id " + settings.topicId().get() + "; it holds topic ids " + ids));
    } else if (all.size() == 1) {
      chosen = all.get(0);
    } else {
      throw new KafkaOffloadException(Kind.INVALID, "the store holds backups of " + all.size() + " topics named "
          + settings.topic() + " (deleted and created again), topic ids " + ids + ": choose one with --topic-id"
          + " (`offload kafka list` shows when each was backed up)");
    }
    ManifestKey key = chosen.newestManifest().orElseThrow(() -> new IntegrityException(chosen.describe()
        + " has segments but no topic manifest (a backup writes it first: it was deleted); run `offload kafka verify`"));
    TopicManifest manifest = source.readManifest(key);
    refuseUncommitted(chosen, manifest);
    List<Integer> partitions = settings.partitions().isEmpty()
        ? IntStream.range(0, manifest.partitions()).boxed().toList() : settings.partitions();
    for (int p : partitions) {
      if (p >= manifest.partitions()) {
        throw new KafkaOffloadException(Kind.INVALID, "partition " + p + " is not in the backup of "
            + chosen.describe() + ", which has " + manifest.partitions() + " partitions");
      }
    }
    return new Backup(chosen, key, manifest, partitions);
  }

  /**
   * A backup read with read_uncommitted holds the records of aborted transactions as ordinary records;
   * restoring it would write them as committed. That is a property of the backup's data, which no retry
   * changes (exit 3, like the holes that --offsets preserve cannot reproduce), not of the target.
   */
  private void refuseUncommitted(TopicIncarnation chosen, TopicManifest manifest) {
    if (TopicManifest.READ_UNCOMMITTED.equals(manifest.isolation()) && !settings.allowUncommitted()) {
      throw new KafkaOffloadException(Kind.INCONSISTENT, "the backup of " + chosen.describe() + " was read with "
          + TopicManifest.READ_UNCOMMITTED + ": it holds the records of aborted transactions, which a restore would"
          + " write as committed records. Nothing was written; to restore it anyway, pass --allow-uncommitted");
    }
  }

  // ---- one-shot ----------------------------------------------------------------------------------

  private RestoreSummary oneShot(long start) {
    Backup backup = resolve();
    Map<Integer, PartitionPlan> plans = scan(backup);
    if (settings.offsetMode() == OffsetMode.PRESERVE) {
      refuseHoles(backup, plans);
    }
    long total = plans.values().stream().mapToLong(PartitionPlan::records).sum();
    int maxRecordBytes = plans.values().stream().mapToInt(PartitionPlan::maxRecordBytes).max().orElse(0);
    try (TargetTopic target = new TargetTopic(settings); GroupOffsetsRestorer groups = groupOffsetsRestorer()) {
      Optional<GroupOffsetsRestorer.Pending> pending = settings.consumerGroups()
          .map(selection -> groups.prepare(backup.incarnation(), backup.partitions(),
              "Nothing was written"));
      String codec = prepareTarget(target, backup, true, plans.values());
      listener.sending(total);
      RecordSender sender = new RecordSender(producerSettings(maxRecordBytes, codec), target.name(),
          settings.bootstrapServers());
      Map<Integer, OffsetMap.Builder> offsetMaps = new ConcurrentHashMap<>();
      sendAll(plans, sender, offsetMaps);
      Map<Integer, Long> highWatermarks = target.endOffsets(backup.partitions());
      List<RestoreSummary.PartitionSummary> partitions = new ArrayList<>();
      for (PartitionPlan plan : plans.values()) {
        long expected = plan.records() == 0 ? 0
            : settings.offsetMode() == OffsetMode.PRESERVE ? plan.endOffset() : plan.records();
        long hw = highWatermarks.get(plan.partition());
        if (hw != expected) {
          throw new KafkaOffloadException(Kind.REFUSED, "after sending " + sender.sent() + " records: target "
              + target.name() + "/" + plan.partition() + " has high watermark " + hw + ", the restore stored "
              + expected + ": another writer on the partition, or a record lost or written twice. "
              + KEPT_AFTER_SENDING);
        }
        partitions.add(new RestoreSummary.PartitionSummary(plan.partition(), plan.records(),
            settings.offsetMode() == OffsetMode.RENUMBER ? plan.holeOffsets() : 0, hw));
      }
      Map<Integer, OffsetMap.PartitionMap> built = new TreeMap<>();
      offsetMaps.forEach((p, map) -> built.put(p, map.build(plans.get(p).endOffset())));
      afterRecords(backup, groups, pending, built, highWatermarks);
      return summary(backup, RestoreSummary.Ending.COMPLETE, partitions, start);
    }
  }

  /** Only when there are groups to commit or an offset map to keep. */
  private GroupOffsetsRestorer groupOffsetsRestorer() {
    return settings.consumerGroups().isPresent() || settings.offsetMode() == OffsetMode.RENUMBER
        ? new GroupOffsetsRestorer(settings, store, clock) : null;
  }

  /**
   * Once every record is in: keeps a renumbering restore's offset map in the store, then commits the
   * chosen groups' offsets, translated by it (or as they are, preserving offsets).
   *
   * @param maps renumber mode: per partition, where each backed-up offset was written
   * @param ends per partition, the target's end
   */
  private void afterRecords(Backup backup, GroupOffsetsRestorer groups, Optional<GroupOffsetsRestorer.Pending> pending,
      Map<Integer, OffsetMap.PartitionMap> maps, Map<Integer, Long> ends) {
    if (groups == null) {
      return;
    }
    Map<Integer, LongUnaryOperator> translate = new TreeMap<>();
    if (settings.offsetMode() == OffsetMode.RENUMBER) {
      try {
        groups.storeMap(backup.incarnation(), maps);
      } catch (StoreException | KafkaOffloadException e) {
        String message = "the records are restored, but their offset map was not stored: " + e.getMessage();
        if (pending.isPresent()) {
          throw new KafkaOffloadException(e instanceof KafkaOffloadException k ? k.kind() : Kind.UNAVAILABLE,
              message + "; no consumer group was changed", e);
        }
        LOG.warn("{}; consumer-group offsets cannot be translated into {} later", message, settings.targetTopic());
      }
      maps.forEach((p, map) -> translate.put(p, map::translate));
    } else {
      backup.partitions().forEach(p -> translate.put(p, LongUnaryOperator.identity()));
    }
    pending.ifPresent(groupsToCommit -> groups.commit(groupsToCommit, translate, ends, listener));
  }

  private static final String KEPT_AFTER_SENDING = "Records sent before this may still be stored: delete the topic"
      + " and create it again before restoring again";

  /** The verify pass: every partition's chain read in full, in parallel. */
  private Map<Integer, PartitionPlan> scan(Backup backup) {
    KeptSegments keep = KeptSegments.forThisHeap();
    return PartitionTasks.runAll(backup.partitions(),
        p -> PartitionPlan.scan(source, backup.incarnation().partition(p), settings.until(), keep), new AtomicBoolean());
  }

  private void refuseHoles(Backup backup, Map<Integer, PartitionPlan> plans) {
    List<String> missing = new ArrayList<>();
    for (PartitionPlan plan : plans.values()) {
      List<OffsetRange> ranges = plan.missingForPreserve();
      if (!ranges.isEmpty()) {
        missing.add("partition " + plan.partition() + " offsets " + ranges.stream().limit(5).map(OffsetRange::toString)
            .reduce((a, b) -> a + ", " + b).orElseThrow() + (ranges.size() > 5 ? " and more" : ""));
      }
    }
    if (!missing.isEmpty()) {
      throw new KafkaOffloadException(Kind.INCONSISTENT, "the backup of " + backup.incarnation().describe()
          + " has no record at " + String.join("; ", missing) + " (holes: compaction, transaction markers,"
          + " aborted transactions, records removed before the backup began or by kafka gc), so --offsets preserve"
          + " cannot reproduce it; restore with --offsets renumber. Nothing was written");
    }
  }

  /** Sends every plan, one thread per partition; any failure stops the others and waits for what is in flight. */
  private void sendAll(Map<Integer, PartitionPlan> plans, RecordSender sender, Map<Integer, OffsetMap.Builder> maps) {
    AtomicBoolean abort = new AtomicBoolean();
    RuntimeException failure = null;
    try {
      PartitionTasks.runAll(List.copyOf(plans.keySet()), p -> {
        sendPlan(plans.get(p), sender, abort, maps);
        return null;
      }, abort);
    } catch (RuntimeException e) {
      failure = e;
    }
    try {
      sender.flush();
    } catch (RuntimeException e) {
      failure = failure != null ? failure : e;
    } finally {
      sender.close();
    }
    if (failure != null) {
      throw afterSending(sender.sent(), failure);
    }
  }

  private void sendPlan(PartitionPlan plan, RecordSender sender, AtomicBoolean abort,
      Map<Integer, OffsetMap.Builder> maps) {
    long next = 0;
    OffsetMap.Builder map = settings.offsetMode() == OffsetMode.RENUMBER
        ? maps.computeIfAbsent(plan.partition(), p -> new OffsetMap.Builder(0)) : null;
    for (PartitionPlan.VerifiedSegment verified : plan.segments()) {
      try (var reader = verified.reopen(source)) {
        for (var entry = reader.next(); entry != null; entry = reader.next()) {
          if (abort.get()) {
            return;
          }
          if (entry instanceof dev.ratisoffload.kafka.format.BackupRecord r && r.offset() < plan.endOffset()) {
            long target = settings.offsetMode() == OffsetMode.PRESERVE ? r.offset() : next;
            sender.send(plan.partition(), r, target);
            if (map != null) {
              map.add(r.offset(), target);
            }
            next++;
          }
        }
      }
      listener.segmentSent(plan.partition(), sender.sent());
    }
  }

  /** The failure as the operator must read it: whether the target may hold part of the restore. */
  private static RuntimeException afterSending(long sent, RuntimeException cause) {
    Kind kind;
    if (cause instanceof KafkaOffloadException k) {
      kind = k.kind();
    } else if (cause instanceof IntegrityException) {
      kind = Kind.INCONSISTENT;
    } else if (cause instanceof StoreException || cause instanceof UncheckedIOException) {
      kind = Kind.UNAVAILABLE;
    } else {
      return cause; // a bug: reported as one
    }
    String message = cause.getMessage();
    if (sent == 0) {
      return new KafkaOffloadException(kind, message + ". Nothing was sent: the target was left as it was", cause);
    }
    return new KafkaOffloadException(kind, "after sending " + sent + " records: " + message + ". "
        + KEPT_AFTER_SENDING, cause);
  }

  // ---- the target --------------------------------------------------------------------------------

  /**
   * Creates the target if asked to and it is missing; refuses one that cannot take the restore.
   *
   * @return the codec the producer compresses with
   */
  private String prepareTarget(TargetTopic target, Backup backup, boolean mustBeEmpty,
      java.util.Collection<PartitionPlan> plans) {
    TopicManifest manifest = backup.manifest();
    boolean created = false;
    var partitions = target.partitions();
    if (partitions.isEmpty()) {
      if (!settings.createTopic()) {
        throw new KafkaOffloadException(Kind.INVALID, "target topic " + target.name() + " does not exist on "
            + settings.bootstrapServers() + ": create it with " + manifest.partitions() + " partitions, or pass"
            + " --create-topic to create it with the backed-up partition count and configs; nothing was written");
      }
      short replication = settings.replicationFactor().orElse((short) manifest.replicationFactor());
      Map<String, String> configs = createConfigs(manifest);
      try {
        target.create(manifest.partitions(), replication, configs);
      } catch (KafkaOffloadException e) {
        if (e.getCause() instanceof InvalidReplicationFactorException) {
          throw TargetTopic.refused("cannot create topic " + target.name() + " with replication factor "
              + replication + " (the backed-up topic's) on " + settings.bootstrapServers() + ": " + e.getCause()
              .getMessage() + "; pass --replication-factor. Nothing was written");
        }
        if (e.kind() == Kind.REFUSED) {
          throw TargetTopic.refused("cannot create topic " + target.name() + " with the backed-up topic's configs "
              + configs + " on " + settings.bootstrapServers() + ": " + e.getCause().getMessage() + ". Create the"
              + " topic with configs the cluster accepts and run without --create-topic; nothing was written");
        }
        throw e;
      }
      created = true;
      LOG.info("created topic {} with {} partitions", target.name(), manifest.partitions());
      partitions = Optional.of(manifest.partitions());
    }
    if (settings.follow()) {
      partitions = Optional.of(addMissingPartitions(target, partitions.get(), manifest));
    }
    Map<String, String> configs = target.configs();
    List<String> refusals = new ArrayList<>(TargetChecks.partitionCount(target.name(), partitions.get(),
        backup.incarnation().describe(), manifest.partitions()));
    refusals.addAll(TargetChecks.timestampType(target.name(), configs, settings.offsetMode()));
    if (refusals.isEmpty() && mustBeEmpty) {
      refusals.addAll(TargetChecks.empty(target.name(), target.endOffsets(backup.partitions())));
    }
    String codec = RestoreCompression.codec(settings.compression(), configs);
    refusals.addAll(TargetChecks.capacity(target.name(), configs, plans, clock.instant(),
        RestoreCompression.sizer(codec, (plan, offset) -> plan.recordAt(source, offset))));
    if (!refusals.isEmpty()) {
      throw TargetTopic.refused(String.join("; ", refusals) + (created
          ? ". The topic was created; nothing was written into it" : ". Nothing was written"));
    }
    return codec;
  }

  /** The configs set on the backed-up topic; preserve mode keeps CreateTime whatever the backup had. */
  private Map<String, String> createConfigs(TopicManifest manifest) {
    Map<String, String> configs = new TreeMap<>();
    for (String name : manifest.topicConfigs()) {
      String value = manifest.config(name);
      if (value != null) {
        configs.put(name, value);
      }
    }
    if (settings.offsetMode() == OffsetMode.PRESERVE) {
      configs.put(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "CreateTime");
    }
    return configs;
  }

  private ProducerSettings producerSettings(int maxRecordBytes, String codec) {
    return new ProducerSettings(settings.bootstrapServers(), "offload-kafka-restore-" + settings.targetTopic(),
        settings.brokerTimeout(), maxRecordBytes, codec, settings.clientProperties());
  }

  // ---- follow ------------------------------------------------------------------------------------

  private RestoreSummary follow(long start) {
    Map<Integer, StandbyPartition.Counts> counts = new TreeMap<>();
    Backup backup = null;
    boolean drained = false;
    RecordSender sender = null;
    TargetTopic target = null;
    try {
      while (!pacing.stopRequested() && !drained) {
        try {
          backup = resolve();
          if (target == null) {
            target = new TargetTopic(settings); // its client connects at once: only once the backup is found
          }
          String codec = prepareTarget(target, backup, false, List.of());
          if (sender == null) {
            sender = RecordSender.forFollower(producerSettings(maxRecordBytes(backup.manifest()), codec), target.name(),
                settings.bootstrapServers(), listener::waiting);
          }
          drained = followSession(backup, target, counts, sender);
        } catch (RuntimeException e) {
          if (pacing.stopRequested()) {
            // Whatever the stop interrupted; what it sent is found again by the next run's resume.
            LOG.info("stopped: {}", e.toString());
            break;
          }
          if (!FollowerPacing.isTransient(e)) {
            throw e;
          }
          Duration wait = pacing.nextRetryWait();
          listener.retrying(e.getMessage(), wait);
          LOG.warn("{}; trying again in {} s", e.getMessage(), wait.toSeconds());
          pacing.pause(wait);
        }
      }
    } finally {
      if (sender != null) {
        // The records in flight get a moment to be stored, not more: a stop must end within 2 s.
        sender.close(pacing.stopRequested() ? STOP_CLOSE : Duration.ofSeconds(2));
      }
      if (target != null) {
        target.close();
      }
    }
    List<RestoreSummary.PartitionSummary> partitions = counts.values().stream()
        .map(c -> new RestoreSummary.PartitionSummary(c.partition, c.restored, c.holesSkipped, c.nextTarget))
        .toList();
    if (drained && settings.consumerGroups().isPresent()) {
      commitDrained(backup);
    }
    RestoreSummary.Ending ending = drained ? RestoreSummary.Ending.DRAINED : RestoreSummary.Ending.STOPPED;
    return backup == null
        ? new RestoreSummary(settings.topic(), null, settings.targetTopic(), settings.offsetMode().word(),
            ending, partitions, seconds(start))
        : summary(backup, ending, partitions, start);
  }

  /**
   * Follows until stopped or, with {@code drainAfter}, drained; throws when something fails (the caller
   * decides whether to try again).
   *
   * @return whether the follower drained: caught up, every record acknowledged, every last record checked
   */
  private boolean followSession(Backup first, TargetTopic target, Map<Integer, StandbyPartition.Counts> counts,
      RecordSender sender) {
    // What the producer sent before a failure is stored or failed before the high watermarks are read.
    if (!sender.settle(pacing::stopRequested)) {
      return false;
    }
    Backup backup = first;
    Map<Integer, StandbyPartition> standbys = new TreeMap<>();
    resumeNew(backup, target, counts, standbys);
    long lastGrowth = System.nanoTime();
    long lastManifestCheck = lastGrowth;
    while (!pacing.stopRequested()) {
      boolean grew = false;
      for (StandbyPartition standby : standbys.values()) {
        grew |= standby.step(sender, pacing::stopRequested);
      }
      sender.throwIfFailed();
      pacing.succeeded();
      long now = System.nanoTime();
      lastGrowth = grew ? now : lastGrowth;
      boolean quiet = settings.drainAfter().isPresent() && now - lastGrowth >= settings.drainAfter().get().toNanos();
      if (quiet || now - lastManifestCheck >= MANIFEST_RECHECK.toNanos()) {
        lastManifestCheck = now;
        Backup newest = reread(backup);
        if (newest.partitions().size() > backup.partitions().size()) {
          addMissingPartitions(target, target.partitions().orElse(0), newest.manifest());
          resumeNew(newest, target, counts, standbys);
          lastGrowth = now;
          quiet = false;
        }
        backup = newest;
      }
      if (quiet) {
        if (!sender.awaitAcknowledged(pacing::stopRequested)) {
          return false;
        }
        // The final check: each partition's last record, read back, is the backup's at that position.
        KafkaBackupCatalog catalog = KafkaBackupCatalog.scan(store, settings.cluster(), settings.topic());
        TopicIncarnation current = catalog.incarnation(settings.topic(), backup.incarnation().topicId())
            .orElse(backup.incarnation());
        for (int p : backup.partitions()) {
          StandbyPartition.resume(settings, source, current, target, new StandbyPartition.Counts(p),
              RestoreListener.NONE);
        }
        return true;
      }
      pacing.pause(settings.pollInterval());
    }
    return false;
  }

  /** The largest record the topic accepted, as its max.message.bytes says. */
  private static int maxRecordBytes(TopicManifest manifest) {
    String maxBytes = manifest.config(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
    return maxBytes == null ? DEFAULT_MAX_RECORD_BYTES : (int) Math.min(Integer.MAX_VALUE, Long.parseLong(maxBytes));
  }

  /** Resumes every partition of the backup not followed yet, each where the target says. */
  private void resumeNew(Backup backup, TargetTopic target, Map<Integer, StandbyPartition.Counts> counts,
      Map<Integer, StandbyPartition> standbys) {
    for (int p : backup.partitions()) {
      if (pacing.stopRequested()) {
        return;
      }
      if (!standbys.containsKey(p)) {
        StandbyPartition.Counts c = counts.computeIfAbsent(p, StandbyPartition.Counts::new);
        standbys.put(p, StandbyPartition.resume(settings, source, backup.incarnation(), target, c, listener));
      }
    }
  }

  /**
   * A drained standby commits its groups' backed-up offsets, capped at its end; renumbering, through an
   * offset map rebuilt from the chain up to what the standby holds (and kept in the store).
   */
  private void commitDrained(Backup backup) {
    try (TargetTopic target = new TargetTopic(settings);
        GroupOffsetsRestorer groups = new GroupOffsetsRestorer(settings, store, clock)) {
      GroupOffsetsRestorer.Pending pending = groups.prepare(backup.incarnation(), backup.partitions(),
          "The standby holds every record; no group's offsets were changed");
      Map<Integer, Long> ends = target.endOffsets(backup.partitions());
      Map<Integer, OffsetMap.PartitionMap> maps = new TreeMap<>();
      if (settings.offsetMode() == OffsetMode.RENUMBER) {
        TopicIncarnation now = KafkaBackupCatalog.scan(store, settings.cluster(), settings.topic())
            .incarnation(settings.topic(), backup.incarnation().topicId()).orElse(backup.incarnation());
        backup.partitions().forEach(p -> maps.put(p, ChainOffsetMapper.map(source, now.partition(p), ends.get(p))));
      }
      afterRecords(backup, groups, Optional.of(pending), maps, ends);
    }
  }

  /**
   * The backup as its newest manifest describes it: with the partitions the source gained since
   * {@code backup} was read (when following them all), and their chains.
   */
  private Backup reread(Backup backup) {
    Optional<ManifestKey> newest = settings.partitions().isEmpty()
        ? source.newestManifest(settings.cluster(), settings.topic(), backup.incarnation().topicId())
        : Optional.empty();
    if (newest.isEmpty() || newest.get().version() <= backup.manifestKey().version()) {
      return backup;
    }
    TopicManifest manifest = source.readManifest(newest.get());
    if (manifest.partitions() <= backup.partitions().size()) {
      return new Backup(backup.incarnation(), newest.get(), manifest, backup.partitions());
    }
    TopicIncarnation incarnation = KafkaBackupCatalog.scan(store, settings.cluster(), settings.topic())
        .incarnation(settings.topic(), backup.incarnation().topicId()).orElse(backup.incarnation());
    LOG.info("the backup of {} now has {} partitions", settings.topic(), manifest.partitions());
    return new Backup(incarnation, newest.get(), manifest, IntStream.range(0, manifest.partitions()).boxed().toList());
  }

  /**
   * Follow mode, when the source gained partitions: with {@code --create-topic} the follower owns the
   * target's shape and adds them, as a standby of the source should; otherwise the operator does, and
   * the follower ends naming them.
   *
   * @return the target's partition count now
   */
  private int addMissingPartitions(TargetTopic target, int targetPartitions, TopicManifest manifest) {
    int backedUp = manifest.partitions();
    if (targetPartitions >= backedUp || !settings.partitions().isEmpty()) {
      return targetPartitions;
    }
    String missing = targetPartitions + 1 == backedUp ? "partition " + targetPartitions
        : "partitions " + targetPartitions + "-" + (backedUp - 1);
    if (!settings.createTopic()) {
      throw TargetTopic.refused("the backup of " + settings.topic() + " has " + backedUp + " partitions (" + missing
          + " added to the source), target topic " + target.name() + " has " + targetPartitions + ": add "
          + missing + " to it (kafka-topics --alter --partitions " + backedUp + "), or follow with --create-topic,"
          + " which adds them. The target holds every record restored so far");
    }
    target.increasePartitions(backedUp);
    LOG.info("added {} to topic {}: the backup has {} partitions", missing, target.name(), backedUp);
    return backedUp;
  }

  // ---- shared ------------------------------------------------------------------------------------

  private RestoreSummary summary(Backup backup, RestoreSummary.Ending ending,
      List<RestoreSummary.PartitionSummary> partitions, long start) {
    return new RestoreSummary(settings.topic(), backup.incarnation().topicId().toString(), settings.targetTopic(),
        settings.offsetMode().word(), ending, partitions, seconds(start));
  }

  private static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }
}
