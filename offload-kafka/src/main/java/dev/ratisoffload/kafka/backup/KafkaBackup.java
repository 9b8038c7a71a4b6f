package dev.ratisoffload.kafka.backup;

import dev.ratisoffload.kafka.FollowerPacing;
import dev.ratisoffload.kafka.KafkaClients;
import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import dev.ratisoffload.kafka.format.BackupRecord;
import dev.ratisoffload.kafka.format.KafkaLayout;
import dev.ratisoffload.kafka.format.KafkaLayout.SegmentKey;
import dev.ratisoffload.kafka.format.SegmentWriter.EncodedSegment;
import dev.ratisoffload.kafka.format.SegmentWriters;
import dev.ratisoffload.kafka.format.TopicManifest;
import dev.ratisoffload.kafka.format.TopicSelection;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.kafka.read.TopicIncarnation;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Backs up topics into a store as one chain of segments per partition, each topic under its own tree
 * with its own manifests and consumer-group offset snapshots, through one consumer and one admin client
 * shared by every topic. Topics a pattern chooses that are created while following are picked up at the
 * next check of the topics ({@link BackupSettings#topicRecheckInterval()}).
 *
 * <p>The consumer assigns the partitions itself (no consumer group) and reads with read_committed
 * unless told otherwise. Each partition's chain continues exactly after its last stored segment, which
 * is verified first, so a backup stopped at any point (SIGTERM, SIGKILL, a crash) and started again
 * stores every record once: records read but not yet stored are simply read again. A segment is
 * sealed when it is big enough or old enough, when the partition is caught up (one-shot), or when the
 * backup stops; before sealed segments are handed to the store the topic's id is checked, so records
 * of a topic deleted and created again never extend the old chain.
 *
 * <p>Sealed segments are stored by an {@link UploadQueue} while the consumer keeps reading: each
 * partition's in chain order, one at a time. The segments waiting to be stored count against the
 * memory budget with the open ones: when together they exceed it, the consumer waits for the store.
 *
 * <p>{@link #run()} runs on the caller's thread; {@link #requestStop()} may be called from any other
 * (a signal handler) and makes {@code run()} store its open segments and return promptly.
 */
public final class KafkaBackup {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaBackup.class);
  private static final Duration POLL = Duration.ofMillis(200);
  /** A following backup being stopped waits this long at most for the groups' offsets: a stop stays prompt. */
  private static final Duration STOPPING_GROUP_OFFSETS = Duration.ofSeconds(1);
  /** Threads storing segments: puts of different partitions overlap; one partition's never do. */
  private static final int STORE_THREADS = 2;

  private final BackupSettings settings;
  private final ObjectStore store;
  private final BackupListener listener;
  private final SegmentSource source;
  private final TopicManifests manifests;
  private final SegmentUploader uploader;
  private final ResumePoint resumePoint;
  private final AtomicBoolean running = new AtomicBoolean();
  private final FollowerPacing pacing = new FollowerPacing();
  private volatile KafkaConsumer<byte[], byte[]> consumer;

  public KafkaBackup(BackupSettings settings, ObjectStore store, BackupListener listener) {
    this.settings = settings;
    this.store = store;
    this.listener = listener;
    this.source = new SegmentSource(store);
    this.manifests = new TopicManifests(source, Clock.systemUTC());
    this.uploader = new SegmentUploader(store, settings.brokerTimeout());
    this.resumePoint = new ResumePoint(source);
  }

  /**
   * Asks a running backup to store what it has read and return; safe from any thread. What it cannot
   * store within {@link FollowerPacing#STOP_GRACE} (a broker or store that does not answer) is left to
   * the next run, which reads it again.
   */
  public void requestStop() {
    pacing.requestStop();
    KafkaConsumer<byte[], byte[]> c = consumer;
    if (c != null) {
      try {
        c.wakeup();
      } catch (RuntimeException ignored) {
        // closed meanwhile: run() is ending anyway
      }
    }
  }

  /**
   * Runs the backup: until caught up (one-shot) or until {@link #requestStop()} (follow). A follower
   * meets a transient failure by starting again after a backoff, where every chain continues; any other
   * failure ends it.
   *
   * @throws KafkaOffloadException saying what kind of failure it was
   * @return each topic's summary, by topic name
   * @throws IntegrityException when the stored chain is corrupt where it must be continued
   */
  public List<BackupSummary> run() {
    if (!running.compareAndSet(false, true)) {
      throw new IllegalStateException("a backup object runs once");
    }
    long startNanos = System.nanoTime();
    pacing.enter();
    try {
      return runUntilDone(startNanos);
    } finally {
      pacing.exit();
    }
  }

  private List<BackupSummary> runUntilDone(long startNanos) {
    while (true) {
      try {
        return runOnce(startNanos);
      } catch (RuntimeException e) {
        if (pacing.stopRequested()) {
          // Whatever the stop interrupted: the chains hold what was stored, the rest is read again.
          LOG.info("stopped: {}", e.toString());
          return settings.topics().names().stream()
              .map(t -> new BackupSummary(t, null, BackupSummary.Ending.STOPPED, 0, List.of())).toList();
        }
        if (!settings.follow() || !FollowerPacing.isTransient(e)) {
          throw e;
        }
        Duration wait = pacing.nextRetryWait();
        LOG.warn("{}; trying again in {} s", e.getMessage(), wait.toSeconds());
        listener.retrying(e.getMessage(), wait);
        pacing.pause(wait);
      }
    }
  }

  /** One attempt: until caught up, stopped, or failed. */
  private List<BackupSummary> runOnce(long startNanos) {
    Admin admin = Admin.create(adminProperties());
    try {
      Run run = new Run(admin, startNanos);
      try {
        return run.execute();
      } catch (RuntimeException e) {
        if (!pacing.stopRequested()) {
          throw e;
        }
        LOG.info("stopped: {}", e.toString());
        return run.summaries(BackupSummary.Ending.STOPPED); // what was stored before the stop interrupted it
      } finally {
        run.discardOpenSegments();
      }
    } finally {
      consumer = null;
      admin.close(Duration.ZERO); // every call was awaited; a stop must not wait for a broker that is gone
    }
  }

  /** One execution: the shared consumer, store threads and loop, and each topic's own state. */
  private final class Run {
    private final Admin admin;
    private final long startNanos;
    private final Map<String, TopicRun> topics = new TreeMap<>();
    private final UploadQueue uploads;
    private final SegmentWriters writers;
    private long lastTopicCheck;
    private long lastProgress;
    private long lastGroupOffsets;

    Run(Admin admin, long startNanos) {
      this.admin = admin;
      this.startNanos = startNanos;
      this.lastTopicCheck = startNanos;
      this.lastProgress = startNanos;
      this.lastGroupOffsets = startNanos;
      this.uploads = new UploadQueue(uploader, STORE_THREADS, "offload-kafka-store-" + settings.label());
      this.writers = new SegmentWriters(); // last: nothing after it can fail and leave its compressor open
    }

    List<BackupSummary> execute() {
      // Closed before run() returns or throws: no put is in progress after it, and the writers'
      // compressor is freed (discarding the open segments afterwards does not touch it).
      try (uploads; writers) {
        // Every chosen topic is described and checked before anything is written for any of them.
        List<TopicRun> chosen = chosenTopics().stream().map(TopicRun::new).toList();
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(BackupConsumerProperties.of(settings),
            new ByteArrayDeserializer(), new ByteArrayDeserializer());
        consumer = c;
        try {
          return execute(c, chosen);
        } finally {
          KafkaClients.closeAtOnce(c);
        }
      }
    }

    /** The topics named, and those the pattern matches now (none is an error unless following). */
    private List<String> chosenTopics() {
      TopicSelection selection = settings.topics();
      if (!selection.hasPattern()) {
        return selection.names();
      }
      List<String> chosen = selection.choose(listTopics());
      if (chosen.isEmpty() && !settings.follow()) {
        throw new KafkaOffloadException(Kind.INVALID, "no topic on the cluster at " + settings.bootstrapServers()
            + " matches " + selection + " (internal topics never match): nothing was backed up. Check the pattern,"
            + " or run with --follow to back up matching topics as they are created");
      }
      return chosen;
    }

    private Set<String> listTopics() {
      return KafkaClients.await(admin.listTopics().names(), settings.brokerTimeout(), settings.bootstrapServers(),
          "list the topics", settings.topics().toString());
    }

    private List<BackupSummary> execute(KafkaConsumer<byte[], byte[]> c, List<TopicRun> chosen) {
      try {
        if (pacing.stopRequested()) {
          return summaries(BackupSummary.Ending.STOPPED);
        }
        for (TopicRun topic : chosen) {
          topic.start(c);
        }
      } catch (WakeupException e) {
        return summaries(BackupSummary.Ending.STOPPED); // stopped before reading anything
      }
      topics.values().forEach(topic -> listener.started(topic.progress(c)));
      pacing.succeeded(); // the cluster and the store answered: the next outage starts the backoff anew
      BackupSummary.Ending ending = loop(c);
      cursors().forEach(PartitionCursor::seal);
      handOffSealed();
      drain();
      recordGroupOffsets(!settings.follow(), settings.follow() ? STOPPING_GROUP_OFFSETS : settings.brokerTimeout());
      topics.values().forEach(topic -> listener.progress(topic.progress(c)));
      return summaries(ending);
    }

    private BackupSummary.Ending loop(KafkaConsumer<byte[], byte[]> c) {
      while (!pacing.stopRequested()) {
        try {
          if (step(c)) {
            return BackupSummary.Ending.CAUGHT_UP;
          }
        } catch (WakeupException e) {
          // requestStop(): the loop condition ends it
        } catch (KafkaException e) {
          throw KafkaClients.failure(settings.bootstrapServers(), settings.brokerTimeout(), "read topic "
              + String.join(", ", topics.keySet()), e);
        }
      }
      return BackupSummary.Ending.STOPPED;
    }

    /** One poll and what follows; true when a one-shot backup has caught up everywhere. */
    private boolean step(KafkaConsumer<byte[], byte[]> c) {
      ConsumerRecords<byte[], byte[]> batch;
      try {
        batch = poll(c);
      } catch (OffsetOutOfRangeException e) {
        throw outOfRange(c, e.offsetOutOfRangePartitions());
      }
      long now = System.nanoTime();
      for (TopicPartition tp : batch.partitions()) {
        PartitionCursor cursor = topics.get(tp.topic()).cursors.get(tp.partition());
        for (ConsumerRecord<byte[], byte[]> r : batch.records(tp)) {
          cursor.append(KafkaClients.toBackupRecord(r), size(r), now);
        }
      }
      boolean allDone = true;
      for (TopicRun topic : topics.values()) {
        allDone &= topic.advance(c, now);
      }
      sealDue(now);
      handOffSealed();
      awaitRoom(c);
      if (settings.follow() && now - lastTopicCheck >= settings.topicRecheckInterval().toNanos()) {
        recheckTopics(c);
        lastTopicCheck = now;
      }
      if (settings.follow() && now - lastGroupOffsets >= settings.groupOffsetsInterval().toNanos()) {
        recordGroupOffsets(false, settings.brokerTimeout());
        lastGroupOffsets = now;
      }
      if (now - lastProgress >= settings.progressInterval().toNanos()) {
        topics.values().forEach(topic -> listener.progress(topic.progress(c)));
        lastProgress = now;
      }
      return !settings.follow() && allDone;
    }

    /** A follower whose pattern matches no topic yet has nothing assigned: it waits instead of polling. */
    private ConsumerRecords<byte[], byte[]> poll(KafkaConsumer<byte[], byte[]> c) {
      if (topics.isEmpty()) {
        pacing.pause(POLL);
        return ConsumerRecords.empty();
      }
      return c.poll(POLL);
    }

    /**
     * Records the consumer groups' offsets, capped at what is stored. Where it must not fail (the end of
     * a one-shot backup) a failure ends the backup; while following it is logged and tried again later.
     */
    private void recordGroupOffsets(boolean mustSucceed, Duration timeout) {
      for (TopicRun topic : topics.values()) {
        topic.recordGroupOffsets(mustSucceed, timeout);
      }
    }

    /** Seals segments that are old or caught up, and every open one while they are over budget. */
    private void sealDue(long now) {
      long memory = 0;
      for (PartitionCursor cursor : cursors()) {
        if (cursor.openIsDue(now, settings.segmentAge().toNanos())) {
          cursor.seal();
        }
        memory += cursor.openMemory();
      }
      if (memory > settings.memoryBudget()) {
        cursors().forEach(PartitionCursor::seal);
      }
    }

    /**
     * Hands every newly sealed segment to the store threads, in chain order per partition, after
     * checking that its topic is still the one backed up.
     */
    private void handOffSealed() {
      for (TopicRun topic : topics.values()) {
        List<PartitionCursor> ready = topic.cursors.values().stream().filter(PartitionCursor::hasUnsubmitted).toList();
        if (ready.isEmpty()) {
          continue;
        }
        topic.requireSameTopic(topic.inspector.describe());
        for (PartitionCursor cursor : ready) {
          for (EncodedSegment segment : cursor.takeUnsubmitted()) {
            uploads.submit(SegmentKey.of(settings.cluster(), topic.name, segment.header()), segment);
          }
        }
      }
    }

    /**
     * Takes what the store threads stored into the cursors and tells the listener; then throws the
     * failure of a put, if one failed.
     */
    private void collectStored() {
      acknowledgeStored();
      uploads.throwIfFailed();
    }

    private void acknowledgeStored() {
      for (UploadQueue.Stored done : uploads.takeStored()) {
        topics.get(done.key().topic()).cursors.get(done.key().partition()).stored(done.segment());
        LOG.debug("stored {}", done.key().key());
        listener.segmentStored(done.key(), done.segment().header());
      }
    }

    /** While the open segments and those waiting to be stored exceed the memory budget, waits for the store. */
    private void awaitRoom(KafkaConsumer<byte[], byte[]> c) {
      collectStored();
      boolean told = false;
      while (uploads.pending() > 0 && memory() > settings.memoryBudget()) {
        if (!told) {
          LOG.debug("segments waiting to be stored fill the memory budget; reading waits for the store");
          topics.values().forEach(topic -> listener.waitingForStore(topic.progress(c)));
          told = true;
        }
        awaitStored();
      }
    }

    /** Waits until every segment handed to the store threads is stored. */
    private void drain() {
      collectStored();
      while (uploads.pending() > 0) {
        awaitStored();
      }
    }

    private void awaitStored() {
      try {
        uploads.awaitStored();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new KafkaOffloadException(Kind.UNAVAILABLE, "interrupted while waiting for the store", e);
      }
      collectStored();
    }

    private long memory() {
      return cursors().stream().mapToLong(cursor -> cursor.openMemory() + cursor.sealedMemory()).sum();
    }

    private List<PartitionCursor> cursors() {
      return topics.values().stream().flatMap(topic -> topic.cursors.values().stream()).toList();
    }

    /** Follow mode: each topic's added partitions and config changes, and new topics the pattern matches. */
    private void recheckTopics(KafkaConsumer<byte[], byte[]> c) {
      for (TopicRun topic : topics.values()) {
        topic.recheck(c);
      }
      if (!settings.topics().hasPattern()) {
        return;
      }
      for (String name : settings.topics().choose(listTopics())) {
        if (!topics.containsKey(name)) {
          LOG.info("topic {} matches {}; backing it up too", name, settings.topics());
          TopicRun topic = new TopicRun(name);
          topic.start(c);
          listener.started(topic.progress(c));
        }
      }
    }

    private KafkaOffloadException outOfRange(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> offsets) {
      Map.Entry<TopicPartition, Long> first = offsets.entrySet().iterator().next();
      TopicPartition tp = first.getKey();
      long offset = first.getValue();
      long start = brokerCall("find where " + tp + " starts",
          () -> c.beginningOffsets(List.of(tp), settings.brokerTimeout()).get(tp));
      long end = brokerCall("find where " + tp + " ends", () -> c.endOffsets(List.of(tp), settings.brokerTimeout()).get(tp));
      if (offset < start) {
        return new KafkaOffloadException(Kind.INCONSISTENT, "records " + offset + "-" + (start - 1) + " of "
            + tp.topic() + "/" + tp.partition() + " were deleted by the broker (retention or a records deletion)"
            + " before this backup stored them: they are lost. The chain is intact up to offset " + (offset - 1)
            + " and nothing more was written. To back up what the topic still holds, start a new chain under"
            + " another cluster id or store prefix, and back up more often or keep records longer");
      }
      return new KafkaOffloadException(Kind.INCONSISTENT, tp.topic() + "/" + tp.partition() + " ends at offset "
          + end + ", but the backup already stored offsets up to " + (offset - 1) + ": the partition lost records"
          + " it had (an unclean leader election?) or is not the topic that was backed up. Nothing more was"
          + " written; compare the chain with the topic before starting a new chain");
    }

    List<BackupSummary> summaries(BackupSummary.Ending ending) {
      return topics.values().stream().map(topic -> topic.summary(ending)).toList();
    }

    void discardOpenSegments() {
      cursors().forEach(PartitionCursor::discard);
    }

    /** One topic's part of the run: its id, manifest, cursors and group offsets. */
    private final class TopicRun {
      private final String name;
      private final TopicInspector inspector;
      private final Uuid topicId;
      private final List<Integer> partitions;
      private final Optional<TopicManifests.Versioned> storedManifest;
      private final GroupOffsetsRecorder groupOffsets;
      private TopicInspector.TopicState topic;
      private TopicManifests.Versioned manifest;
      private final Map<Integer, PartitionCursor> cursors = new TreeMap<>();
      private final Map<Integer, Long> targets = new HashMap<>();

      /** Describes the topic and checks that its chains may be continued; writes nothing. */
      TopicRun(String name) {
        this.name = name;
        this.inspector = new TopicInspector(admin, name, settings.bootstrapServers(), settings.brokerTimeout());
        this.topic = inspector.describe();
        this.topicId = topic.topicId();
        this.partitions = choosePartitions(name, topic.partitions());
        refuseOtherIncarnation(name, topicId);
        this.storedManifest = manifests.newest(settings.cluster(), name, topicId);
        refuseIsolationChange(name, storedManifest);
        this.groupOffsets = new GroupOffsetsRecorder(admin, store, settings.forTopic(name), topicId, Clock.systemUTC());
      }

      /** Stores the manifest if the topic changed, then assigns and positions its partitions. */
      void start(KafkaConsumer<byte[], byte[]> c) {
        manifest = manifests.ensure(describeManifest(topic, inspector), storedManifest);
        topics.put(name, this);
        addPartitions(c, true, partitions);
        if (!settings.follow()) {
          targets.putAll(endOffsets(c, cursors.keySet()));
        }
      }

      /** Moves each cursor to the consumer's position; true when every partition reached its target. */
      boolean advance(KafkaConsumer<byte[], byte[]> c, long now) {
        boolean allDone = true;
        for (PartitionCursor cursor : cursors.values()) {
          if (cursor.done) {
            continue;
          }
          TopicPartition tp = new TopicPartition(name, cursor.partition());
          long position = c.position(tp);
          cursor.advanceTo(position, now);
          Long target = targets.get(cursor.partition());
          if (target != null && position >= target) {
            cursor.done = true;
            c.pause(List.of(tp));
          } else {
            allDone = false;
          }
        }
        return allDone;
      }

      void recordGroupOffsets(boolean mustSucceed, Duration timeout) {
        Map<Integer, Long> storedEnds = new TreeMap<>();
        cursors.values().forEach(cursor -> storedEnds.put(cursor.partition(), cursor.storedUpTo()));
        try {
          groupOffsets.record(storedEnds, timeout);
        } catch (KafkaOffloadException | StoreException e) {
          String message = "every record read is stored and every chain is intact, but the consumer groups' offsets"
              + " of topic " + name + " were not recorded: " + e.getMessage();
          if (mustSucceed) {
            throw new KafkaOffloadException(e instanceof KafkaOffloadException k ? k.kind() : Kind.UNAVAILABLE,
                message + ". Run the backup again to record them", e);
          }
          LOG.warn("{}; trying again in {} s", message, settings.groupOffsetsInterval().toSeconds());
        }
      }

      /**
       * Throws when the topic's id is no longer the one backed up; the store threads are stopped first,
       * so the message names exactly what was not stored.
       */
      void requireSameTopic(TopicInspector.TopicState now) {
        if (!now.topicId().equals(topicId)) {
          uploads.stop();
          acknowledgeStored();
          StringBuilder unsaved = new StringBuilder();
          for (PartitionCursor cursor : cursors.values().stream().filter(PartitionCursor::hasUnstored).toList()) {
            unsaved.append(unsaved.length() == 0 ? "" : ", ").append(cursor.partition()).append(" from offset ")
                .append(cursor.storedUpTo());
          }
          throw new KafkaOffloadException(Kind.REFUSED, "topic " + name + " was deleted and created"
              + " again while it was backed up (topic id " + topicId + " is now " + now.topicId() + "). "
              + (unsaved.length() == 0 ? "" : "The records read since the last stored segments (partitions " + unsaved
              + ") were not stored, because some may belong to the new topic; ") + "the old chain is intact"
              + (topics.size() > 1 ? ", and so are the other topics' chains" : "") + ". To back"
              + " up the new topic as a new chain, run again with --accept-recreated-topic");
        }
      }

      /** Follow mode: picks up partitions added to the topic and config changes. */
      void recheck(KafkaConsumer<byte[], byte[]> c) {
        TopicInspector.TopicState now = inspector.describe();
        requireSameTopic(now);
        if (now.partitions() > topic.partitions() && settings.selectedPartitions().isEmpty()) {
          List<Integer> added = new ArrayList<>();
          for (int p = topic.partitions(); p < now.partitions(); p++) {
            added.add(p);
          }
          LOG.info("topic {} now has {} partitions; backing up {} too", name, now.partitions(), added);
          addPartitions(c, false, added);
        }
        topic = now;
        manifest = manifests.ensure(describeManifest(now, inspector), Optional.of(manifest));
      }

      /**
       * Assigns partitions and positions each where its stored chain continues (when {@code continueChains})
       * or at its start.
       */
      private void addPartitions(KafkaConsumer<byte[], byte[]> c, boolean continueChains, List<Integer> partitions) {
        List<TopicPartition> assignment = new ArrayList<>(c.assignment());
        List<TopicPartition> fromStart = new ArrayList<>();
        Map<Integer, ResumePoint.ChainTail> tails = new HashMap<>();
        for (int p : partitions) {
          TopicPartition tp = new TopicPartition(name, p);
          assignment.add(tp);
          Optional<ResumePoint.ChainTail> tail = continueChains
              ? resumePoint.find(settings.cluster(), name, topicId, p) : Optional.empty();
          if (tail.isPresent()) {
            tails.put(p, tail.get());
          } else {
            fromStart.add(tp);
          }
        }
        c.assign(assignment);
        tails.forEach((p, tail) -> {
          c.seek(new TopicPartition(name, p), tail.nextOffset());
          cursors.put(p, new PartitionCursor(writers, topicId, p, tail.nextOffset(), tail.lastSha256(),
              settings.segmentBytes()));
        });
        if (!fromStart.isEmpty()) {
          c.seekToBeginning(fromStart);
          for (TopicPartition tp : fromStart) {
            long start = brokerCall("find where " + tp + " starts", () -> c.position(tp, settings.brokerTimeout()));
            cursors.put(tp.partition(), new PartitionCursor(writers, topicId, tp.partition(), start, null,
                settings.segmentBytes()));
          }
        }
      }

      private Map<Integer, Long> endOffsets(KafkaConsumer<byte[], byte[]> c, java.util.Collection<Integer> partitions) {
        List<TopicPartition> tps = partitions.stream().map(p -> new TopicPartition(name, p)).toList();
        Map<TopicPartition, Long> ends = brokerCall("find where the partitions of " + name + " end",
            () -> c.endOffsets(tps, settings.brokerTimeout()));
        Map<Integer, Long> byPartition = new HashMap<>();
        ends.forEach((tp, end) -> byPartition.put(tp.partition(), end));
        return byPartition;
      }

      BackupProgress progress(KafkaConsumer<byte[], byte[]> c) {
        List<BackupProgress.PartitionProgress> parts = new ArrayList<>();
        for (PartitionCursor cursor : cursors.values()) {
          TopicPartition tp = new TopicPartition(name, cursor.partition());
          long lag = cursor.done ? 0 : c.currentLag(tp).orElse(-1);
          parts.add(new BackupProgress.PartitionProgress(cursor.partition(), cursor.recordsRead, cursor.bytesRead,
              cursor.segmentsWritten, cursor.storedUpTo(), cursor.coveredUpTo(), lag));
        }
        return new BackupProgress(name, topicId.toString(), Duration.ofNanos(System.nanoTime() - startNanos), parts);
      }

      BackupSummary summary(BackupSummary.Ending ending) {
        List<BackupSummary.PartitionSummary> parts = new ArrayList<>();
        for (PartitionCursor cursor : cursors.values()) {
          parts.add(new BackupSummary.PartitionSummary(cursor.partition(), cursor.segmentsWritten,
              cursor.recordsWritten, cursor.holeOffsetsWritten, cursor.bytesStored, cursor.storedUpTo()));
        }
        return new BackupSummary(name, topicId.toString(), ending, manifest.key().version(), parts);
      }
    }
  }

  private List<Integer> choosePartitions(String topic, int count) {
    if (settings.selectedPartitions().isEmpty()) {
      List<Integer> all = new ArrayList<>();
      for (int p = 0; p < count; p++) {
        all.add(p);
      }
      return all;
    }
    for (int p : settings.partitions()) {
      if (p >= count) {
        throw new KafkaOffloadException(Kind.INVALID, "topic " + topic + " has partitions 0-"
            + (count - 1) + ", not " + p + " (nothing was written)");
      }
    }
    return settings.partitions();
  }

  /**
   * Refuses to start a chain for a topic id when the store holds another incarnation of the topic. Two
   * one-key listings decide it; the topic's whole tree is listed only to say what is refused.
   */
  private void refuseOtherIncarnation(String topic, Uuid topicId) {
    if (settings.acceptRecreatedTopic()
        || !store.list(KafkaLayout.topicIdPrefix(settings.cluster(), topic, topicId), "", 1).isEmpty()
        || store.list(KafkaLayout.topicPrefix(settings.cluster(), topic), "", 1).isEmpty()) {
      return;
    }
    List<TopicIncarnation> others = KafkaBackupCatalog.scan(store, settings.cluster(), topic).incarnations(topic);
    if (!others.isEmpty()) {
      TopicIncarnation old = others.get(others.size() - 1);
      long segments = old.partitions().values().stream().mapToLong(ch -> ch.segments().size()).sum();
      throw new KafkaOffloadException(Kind.REFUSED, "topic " + topic + " now has topic id " + topicId
          + ", but the store already holds a backup of an earlier topic of that name (topic id " + old.topicId()
          + ", " + segments + " segments): it was deleted and created again, so its offsets start a new history"
          + " and cannot continue the old chain. Nothing was written and the old backup is kept. To back up the"
          + " new topic as a new chain beside it, run again with --accept-recreated-topic");
    }
  }

  private void refuseIsolationChange(String topic, Optional<TopicManifests.Versioned> stored) {
    if (stored.isPresent() && !stored.get().manifest().isolation().equals(settings.isolation())) {
      throw new KafkaOffloadException(Kind.INVALID, "the chain of topic " + topic + " was written with "
          + stored.get().manifest().isolation() + ", this run asks for " + settings.isolation()
          + ": one chain cannot mix them (holes would mean different things). Run with the same isolation;"
          + " nothing was written");
    }
  }

  private TopicManifest describeManifest(TopicInspector.TopicState topic, TopicInspector inspector) {
    TopicInspector.TopicConfigs configs = inspector.configs();
    return new TopicManifest(TopicManifest.FORMAT_VERSION, settings.cluster(), inspector.topic(),
        topic.topicId().toString(), topic.partitions(), topic.replicationFactor(), settings.isolation(),
        configs.values(), configs.topicLevel(), null, null);
  }

  private <T> T brokerCall(String what, java.util.function.Supplier<T> call) {
    try {
      return call.get();
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      throw new KafkaOffloadException(Kind.UNAVAILABLE, "the Kafka cluster at " + settings.bootstrapServers()
          + " did not answer within " + settings.brokerTimeout().toSeconds() + " s (" + what + "); the stored"
          + " chain is intact: check that the cluster is reachable and run again", e);
    } catch (WakeupException | OffsetOutOfRangeException e) {
      throw e;
    } catch (KafkaException e) {
      throw KafkaClients.failure(settings.bootstrapServers(), settings.brokerTimeout(), what, e);
    }
  }

  private static long size(ConsumerRecord<byte[], byte[]> r) {
    long size = Math.max(0, r.serializedKeySize()) + Math.max(0, r.serializedValueSize());
    for (Header h : r.headers()) {
      size += h.key().length() + (h.value() == null ? 0 : h.value().length);
    }
    return size;
  }

  private Map<String, Object> adminProperties() {
    return KafkaClients.adminProperties(settings.bootstrapServers(), "offload-kafka-backup-admin-" + settings.label(),
        settings.brokerTimeout(), settings.clientProperties());
  }
}
