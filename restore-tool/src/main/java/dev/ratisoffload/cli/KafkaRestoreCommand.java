package dev.ratisoffload.cli;

import dev.ratisoffload.kafka.format.GroupSelection;
import dev.ratisoffload.kafka.restore.KafkaTopicRestore;
import dev.ratisoffload.kafka.restore.OffsetMode;
import dev.ratisoffload.kafka.restore.RestoreListener;
import dev.ratisoffload.kafka.restore.RestoreSettings;
import dev.ratisoffload.kafka.restore.RestoreSummary;
import dev.ratisoffload.primitives.Printable;
import dev.ratisoffload.store.ObjectStore;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code offload kafka restore}: backed-up topics into topics of a cluster, one after the other, once; or one
 * topic following its backup.
 */
@Command(name = "restore",
    mixinStandardHelpOptions = true,
    description = {
        "Restores a backed-up topic into a topic of a Kafka cluster, every record exactly as backed up: key, value,"
            + " headers and timestamp, each partition into the same partition.",
        "One-shot (the default): first reads and verifies every segment to restore (hashes and chain), and checks"
            + " the target: it must exist (or --create-topic), have the backed-up partition count, be empty, and be"
            + " able to keep the records (message.timestamp.type, retention.ms, retention.bytes,"
            + " message.timestamp.before.max.ms, max.message.bytes, the last as compressed); any refusal names the setting and nothing is written. Then it sends with the"
            + " idempotent producer (acks=all) and checks every delivery against the offset the record was sent"
            + " for: another writer on a partition ends it with exit 5.",
        "--offsets preserve (the default) writes every record at its original offset and refuses a backup with"
            + " holes (compaction, transaction markers); --offsets renumber writes them consecutively from 0.",
        "--follow keeps the target in step with a backup that is still being written (a standby) until SIGTERM or"
            + " SIGINT (exit 0). It keeps no state: each partition continues at the target's high watermark once the"
            + " target's last record equals the backup's at that position (else exit 5). Partitions the source gains"
            + " are added to the target with --create-topic and followed; without it the follower ends (exit 5)"
            + " naming them. An unreachable store or"
            + " broker, or another error Kafka retries, is retried with backoff (1 s doubling to 60 s); any other"
            + " failure (authorization, a topic config the cluster refuses, damaged data) ends it with its exit code."},
    footerHeading = "%nExamples:%n",
    footer = {
        "  offload kafka restore --store s3://backups/kafka --cluster orders-prod --topic orders \\",
        "      --bootstrap-server kafka1:9092 --create-topic",
        "  offload kafka restore --store s3://backups/kafka --cluster orders-prod --topic orders \\",
        "      --bootstrap-server standby1:9092 --target-topic orders --follow",
        "  offload kafka restore --store s3://backups/kafka --cluster orders-prod --topic orders \\",
        "      --bootstrap-server kafka1:9092 --target-topic orders-before-incident \\",
        "      --until 2026-05-01T12:00:00Z --offsets renumber --create-topic"})
final class KafkaRestoreCommand extends StoreCommand implements ErrorReporter.Advising {

  @Mixin
  private ProgressOptions progress;

  @Mixin
  private KafkaClientOptions client;

  @Option(names = "--cluster", required = true, paramLabel = "ID", converter = Converters.Cluster.class,
      description = "The name the backup is stored under (the --cluster of offload kafka backup).")
  private String cluster;

  @Option(names = "--topic", required = true, paramLabel = "TOPIC",
      description = "A backed-up topic to restore (repeatable: several are restored one after the other, each into"
          + " the topic of the same name, with one summary; not with --follow, --target-topic, --topic-id or"
          + " --partitions).")
  private List<String> topics = new ArrayList<>();

  @Option(names = "--topic-id", paramLabel = "UUID",
      description = "Which backup of the topic, when the store holds several (the topic was deleted and created"
          + " again); offload kafka list shows the ids.")
  private String topicId;

  @Option(names = "--target-topic", paramLabel = "TOPIC", description = "The topic to write into. Default: --topic.")
  private String targetTopic;

  @Option(names = "--partitions", split = ",", paramLabel = "N[,N...]", description = "Only these partitions.")
  private List<Integer> partitions = new ArrayList<>();

  @Option(names = "--offsets", paramLabel = "preserve|renumber", defaultValue = "preserve",
      description = "preserve: every record at its original offset (default); renumber: consecutively from 0.")
  private String offsets;

  @Option(names = "--create-topic",
      description = "Create the target if it does not exist, with the backed-up partition count and topic configs "
          + "(message.timestamp.type=CreateTime with --offsets preserve).")
  private boolean createTopic;

  @Option(names = "--replication-factor", paramLabel = "N",
      description = "For --create-topic: the replication factor. Default: the backed-up topic's.")
  private Short replicationFactor;

  @Option(names = "--until", paramLabel = "TIME", converter = Converters.Time.class,
      description = "Point in time: per partition, the records up to the first one whose timestamp is later than "
          + "TIME (an ISO-8601 instant such as 2026-05-01T12:00:00Z, or a date).")
  private Instant until;

  @Option(names = "--follow", description = "Keep following the backup as it grows, until SIGTERM or SIGINT.")
  private boolean follow;

  @Option(names = "--poll-interval", paramLabel = "DURATION", defaultValue = "1s",
      converter = Converters.RatisDuration.class,
      description = "With --follow: how often to look for new segments (default ${DEFAULT-VALUE}, at least 100ms).")
  private Duration pollInterval;

  @Option(names = "--drain-after", paramLabel = "DURATION", converter = Converters.RatisDuration.class,
      description = "With --follow: end (exit 0) once the backup has not grown for DURATION and every record is on"
          + " the target, after reading back each partition's last record and comparing it with the backup's: the"
          + " last step before promoting a standby.")
  private Duration drainAfter;

  @Option(names = "--compression", paramLabel = "none|gzip|snappy|lz4|zstd|producer",
      description = "How the producer compresses. Default: as the target topic's compression.type says (its"
          + " codec; uncompressed for producer or uncompressed). The broker checks max.message.bytes against the"
          + " batch as compressed.")
  private String compression;

  @Option(names = "--allow-uncommitted",
      description = "Restore a backup read with --isolation read_uncommitted: its aborted transactional records"
          + " are written as committed records. Without it such a backup is refused (exit 3).")
  private boolean allowUncommitted;
  @Option(names = "--consumer-groups", paramLabel = "REGEX",
      description = "Once the records are in, commit the backed-up offsets of the consumer groups whose id this"
          + " regular expression matches entirely (repeatable; '.*' for all): from the newest snapshot (at or before"
          + " --until, capped at it), translated with --offsets renumber. A group with members on the target is"
          + " refused (exit 5) before anything is written. With --follow: once drained (--drain-after).")
  private List<String> consumerGroups = new ArrayList<>();

  @Override
  public Integer call() {
    List<String> chosen = List.copyOf(new TreeSet<>(topics));
    refuseSingleTopicOptions(chosen);
    List<RestoreSettings> settings = chosen.stream().map(this::settings).toList();
    try (ObjectStore store = openStore()) {
      List<RestoreSummary> restored = new ArrayList<>();
      for (RestoreSettings topic : settings) {
        KafkaTopicRestore restore = new KafkaTopicRestore(topic, store, new Reporter(err(), progress.mode.enabled()));
        if (follow) {
          StopHandler.install(restore::requestStop, true, "offload kafka restore", err());
        }
        try {
          restored.add(restore.run());
        } catch (RuntimeException e) {
          sayWhatHappenedToTheOthers(chosen, topic.topic(), restored);
          throw e;
        }
      }
      print(restored);
      return ExitCodes.OK;
    }
  }

  /** Options that name one topic's target, backup or partitions cannot apply to several topics. */
  private void refuseSingleTopicOptions(List<String> chosen) {
    if (chosen.size() < 2) {
      return;
    }
    Map<String, Boolean> single = new LinkedHashMap<>();
    single.put("--target-topic", targetTopic != null);
    single.put("--topic-id", topicId != null);
    single.put("--partitions", !partitions.isEmpty());
    single.put("--follow", follow);
    single.forEach((option, given) -> {
      if (given) {
        throw new ParameterException(spec.commandLine(), option + " applies to one topic, but " + chosen.size()
            + " topics were given (" + String.join(", ", chosen) + "): restore that topic on its own. Nothing was"
            + " written");
      }
    });
  }

  /** Before the failure's own message: which topics were restored and which were not started. */
  private void sayWhatHappenedToTheOthers(List<String> chosen, String failed, List<RestoreSummary> restored) {
    if (chosen.size() < 2) {
      return;
    }
    List<String> done = restored.stream().map(RestoreSummary::topic).toList();
    List<String> notStarted = chosen.subList(chosen.indexOf(failed) + 1, chosen.size());
    err().println("offload kafka restore: restoring topic " + failed + " failed (below); "
        + (done.isEmpty() ? "no topic was restored before it" : "restored before it: " + String.join(", ", done))
        + (notStarted.isEmpty() ? "" : "; not started: " + String.join(", ", notStarted)));
    err().flush();
  }

  private RestoreSettings settings(String topic) {
    OffsetMode mode = switch (offsets.toLowerCase(Locale.ROOT)) {
      case "preserve" -> OffsetMode.PRESERVE;
      case "renumber" -> OffsetMode.RENUMBER;
      default -> throw new ParameterException(spec.commandLine(), "--offsets must be preserve or renumber, not '"
          + offsets + "'");
    };
    try {
      return RestoreSettings.builder(client.bootstrapServers, cluster, topic)
          .topicId(topicId == null ? null : Uuid.fromString(topicId))
          .targetTopic(targetTopic == null ? topic : targetTopic)
          .partitions(partitions)
          .offsetMode(mode)
          .createTopic(createTopic)
          .replicationFactor(replicationFactor)
          .until(until)
          .follow(follow)
          .pollInterval(pollInterval)
          .drainAfter(drainAfter)
          .brokerTimeout(client.brokerTimeout)
          .clientProperties(client.clientProperties())
          .compression(compression)
          .allowUncommitted(allowUncommitted)
          .consumerGroups(consumerGroups.isEmpty() ? null : GroupSelection.of(consumerGroups))
          .build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /** One table over every topic, then a line per topic; as JSON, the summary, or an array for several topics. */
  private void print(List<RestoreSummary> summaries) {
    PrintWriter out = out();
    if (output.json) {
      Json.print(out, summaries.size() == 1 ? summaries.get(0) : summaries);
      return;
    }
    Table table = new Table("TOPIC", "PARTITION", "RECORDS RESTORED", "HOLE OFFSETS SKIPPED", "NEXT OFFSET");
    for (RestoreSummary summary : summaries) {
      for (RestoreSummary.PartitionSummary p : summary.partitions()) {
        table.row(summary.targetTopic(), p.partition(), p.recordsRestored(), p.holeOffsetsSkipped(), p.nextOffset());
      }
    }
    table.print(out);
    summaries.forEach(summary -> printLine(out, summary));
    out.flush();
  }

  private static void printLine(PrintWriter out, RestoreSummary summary) {
    out.printf(Locale.ROOT, "%s %,d records of %s (topic id %s) into %s, offsets %s, in %.1f s%n",
        switch (summary.ending()) {
          case COMPLETE -> "restored";
          case STOPPED -> "stopped after restoring";
          case DRAINED -> "drained (the backup stopped growing; every partition's last record checked) after restoring";
        },
        summary.records(), Printable.of(summary.topic()), Printable.of(summary.topicId()),
        Printable.of(summary.targetTopic()), summary.offsets(),
        summary.seconds());
  }

  @Override
  public String advice(int exitCode) {
    if (exitCode == ExitCodes.UNAVAILABLE && !follow) {
      return "Check that the store and the cluster are reachable, then run it again";
    }
    return null;
  }

  /** Retries and resumptions always, on standard error; transfer progress when asked for. */
  private static final class Reporter implements RestoreListener {
    private final PrintWriter err;
    private final boolean progress;
    private long total = -1;
    private long lastLine;

    Reporter(PrintWriter err, boolean progress) {
      this.err = err;
      this.progress = progress;
    }

    @Override
    public synchronized void sending(long records) {
      total = records;
      if (progress) {
        err.printf(Locale.ROOT, "verified; sending %,d records%n", records);
        err.flush();
      }
    }

    @Override
    public synchronized void segmentSent(int partition, long sent) {
      long now = System.nanoTime();
      if (progress && now - lastLine >= Duration.ofSeconds(2).toNanos()) {
        lastLine = now;
        err.printf(Locale.ROOT, total >= 0 ? "sent %,d of %,d records%n" : "sent %,d records%n", sent, total);
        err.flush();
      }
    }

    @Override
    public synchronized void resumed(int partition, long targetOffset, long sourceOffset) {
      err.printf(Locale.ROOT, "partition %d: continuing at target offset %,d (backup offset %,d)%n", partition,
          targetOffset, sourceOffset);
      err.flush();
    }

    @Override
    public synchronized void groupCommitted(String group, Map<Integer, Long> offsets) {
      err.printf(Locale.ROOT, "consumer group %s: committed %s (partition=offset it reads next)%n",
          Printable.of(group), offsets);
      err.flush();
    }

    @Override
    public synchronized void waiting(String problem) {
      err.println(ErrorReporter.oneLine(problem));
      err.flush();
    }

    @Override
    public synchronized void retrying(String problem, Duration wait) {
      err.printf(Locale.ROOT, "%s; trying again in %d s%n", ErrorReporter.oneLine(problem), wait.toSeconds());
      err.flush();
    }
  }
}
