package dev.ratisoffload.cli;

import dev.ratisoffload.kafka.backup.BackupListener;
import dev.ratisoffload.kafka.backup.BackupSettings;
import dev.ratisoffload.kafka.backup.BackupSummary;
import dev.ratisoffload.kafka.backup.KafkaBackup;
import dev.ratisoffload.kafka.backup.TerminalProgress;
import dev.ratisoffload.kafka.format.GroupSelection;
import dev.ratisoffload.kafka.format.TopicSelection;
import dev.ratisoffload.kafka.gc.ChainCollector;
import dev.ratisoffload.kafka.gc.ChainRetention;
import dev.ratisoffload.kafka.gc.RetentionWhileBackingUp;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.primitives.ByteSizes;
import dev.ratisoffload.store.ObjectStore;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code offload kafka backup}: topics into the store, once or following them until stopped. */
@Command(name = "backup",
    mixinStandardHelpOptions = true,
    description = {
        "Reads every partition of the topics (or --partitions of one topic) with one Kafka consumer, assigning "
            + "them itself (no consumer group), and stores each as a chain of segments under the --cluster name. "
            + "Each topic keeps its own chains, manifests and group offsets. With --topic-pattern, topics created "
            + "while following are backed up from the next check of the topics (every 30 s). A run "
            + "continues every chain after its last segment, which it verifies first, so a backup stopped "
            + "at any point and run again stores every record once.",
        "Without --follow it stops once every partition is stored up to where it ended at the start. "
            + "With --follow it keeps the backup current until SIGTERM or SIGINT, which store the open "
            + "segments and exit 0. A follower starts again after a transient failure (store or broker "
            + "unreachable, an error Kafka retries), with backoff (1 s doubling to 60 s); any other failure "
            + "(authorization, an error Kafka does not retry) ends it with its exit code.",
        "With --keep-within or --keep-bytes it removes, after each stored segment, what offload kafka gc with "
            + "the same flags would remove from that partition's chain.",
        "Transactional topics are read with read_committed: aborted records and transaction markers, like "
            + "offsets removed by compaction, are recorded as holes, not as lost data.",
        "The committed offsets of the consumer groups that read the topic are recorded too, capped at what is "
            + "stored: once at the end, or every --group-offsets-interval while following; kafka restore "
            + "--consumer-groups commits them on the target."},
    footerHeading = "%nExamples:%n",
    footer = {
        "  offload kafka backup --bootstrap-server kafka1:9092 --topic orders \\",
        "      --store s3://backups/kafka --cluster orders-prod",
        "  offload kafka backup --bootstrap-server kafka1:9092 --topic orders --follow \\",
        "      --command-config client.properties --store file:///mnt/backups \\",
        "      --cluster orders-prod",
        "  offload kafka backup --bootstrap-server kafka1:9092 --topic-pattern 'orders\\..*' --follow \\",
        "      --store s3://backups/kafka --cluster orders-prod"})
final class KafkaBackupCommand extends StoreCommand implements ErrorReporter.Advising {

  @Mixin
  private ProgressOptions progress;

  @Mixin
  private KafkaClientOptions client;

  @Option(names = "--topic", paramLabel = "TOPIC", description = "A topic to back up (repeatable).")
  private List<String> topics = new ArrayList<>();

  @Option(names = "--topic-pattern", paramLabel = "REGEX",
      description = "Also back up every topic whose whole name this regular expression matches (internal topics"
          + " such as __consumer_offsets never match); with --follow, topics created later too.")
  private String topicPattern;

  @Option(names = "--cluster", required = true, paramLabel = "ID", converter = Converters.Cluster.class,
      description = "The name the backup is stored under (kafka/<ID>/<topic>/...), e.g. the Kafka cluster's.")
  private String cluster;

  @Option(names = "--partitions", split = ",", paramLabel = "N[,N...]",
      description = "Only these partitions. Default: all, and any added while following.")
  private List<Integer> partitions = new ArrayList<>();

  @Option(names = "--follow", description = "Keep the backup current until SIGTERM or SIGINT.")
  private boolean follow;

  @Option(names = "--isolation", paramLabel = "read_committed|read_uncommitted", defaultValue = "read_committed",
      description = "How transactional records are read (default ${DEFAULT-VALUE}); a chain never mixes the two.")
  private String isolation;

  @Option(names = "--segment-bytes", paramLabel = "BYTES", defaultValue = "16777216",
      description = "Close a segment once its records reach this many bytes before compression "
          + "(default ${DEFAULT-VALUE}).")
  private long segmentBytes;

  @Option(names = "--segment-age", paramLabel = "DURATION", defaultValue = "30s",
      converter = Converters.RatisDuration.class,
      description = "Close a segment once it has been open this long, so the store is never further behind "
          + "(default ${DEFAULT-VALUE}).")
  private Duration segmentAge;

  @Option(names = "--accept-recreated-topic",
      description = "Start a new chain when the store holds a backup of an earlier topic of the same name "
          + "(deleted and created again); the old backup is kept beside it.")
  private boolean acceptRecreatedTopic;

  @Mixin
  private ChainRetentionOptions retentionOptions;
  @Option(names = "--consumer-groups", paramLabel = "REGEX",
      description = "Record the committed offsets of only the consumer groups whose id this regular expression"
          + " matches entirely (repeatable; a plain name is the group itself). Default: every group that committed"
          + " an offset of the topic.")
  private List<String> consumerGroups = new ArrayList<>();

  @Option(names = "--group-offsets-interval", paramLabel = "DURATION", defaultValue = "1min",
      converter = Converters.RatisDuration.class,
      description = "With --follow: how often the consumer groups' offsets are recorded (default ${DEFAULT-VALUE};"
          + " also once at a stop). A one-shot backup records them once, when its records are stored.")
  private Duration groupOffsetsInterval;

  @Override
  public Integer call() {
    BackupSettings settings = settings();
    Optional<ChainRetention> retention = retentionOptions.retention(spec);
    try (ObjectStore store = openStore()) {
      BackupListener listener = retention.map(r -> listener().alsoOnSegmentStored(new RetentionWhileBackingUp(
          new ChainCollector(new SegmentSource(store), r), warning -> err().println("offload kafka backup: " + warning))
          ::segmentStored)).orElseGet(this::listener);
      KafkaBackup backup = new KafkaBackup(settings, store, listener);
      StopHandler.install(backup::requestStop, follow, "offload kafka backup", err());
      List<BackupSummary> summaries = backup.run();
      print(summaries, settings.topics().isSingle());
      if (!follow && summaries.stream().anyMatch(s -> s.ending() == BackupSummary.Ending.STOPPED)) {
        err().println("offload kafka backup: stopped by a signal before catching up; every chain"
            + " is intact and holds what was stored. Run the same command again to continue");
        return ExitCodes.UNAVAILABLE;
      }
      return ExitCodes.OK;
    }
  }

  private BackupSettings settings() {
    if (!isolation.equals("read_committed") && !isolation.equals("read_uncommitted")) {
      throw new ParameterException(spec.commandLine(), "--isolation must be read_committed or read_uncommitted, not '"
          + isolation + "'");
    }
    try {
      return BackupSettings.builder(client.bootstrapServers, TopicSelection.of(topics, topicPattern), cluster)
          .partitions(partitions)
          .follow(follow)
          .readCommitted(isolation.equals("read_committed"))
          .segmentBytes(segmentBytes)
          .segmentAge(segmentAge)
          .brokerTimeout(client.brokerTimeout)
          .acceptRecreatedTopic(acceptRecreatedTopic)
          .clientProperties(client.clientProperties())
          .consumerGroups(consumerGroups.isEmpty() ? GroupSelection.ALL : GroupSelection.of(consumerGroups))
          .groupOffsetsInterval(groupOffsetsInterval)
          .build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  /** Progress when asked for; retries of a follower always, on standard error. */
  private BackupListener listener() {
    PrintWriter err = spec.commandLine().getErr();
    if (!progress.mode.enabled()) {
      return new BackupListener() {
        @Override
        public void retrying(String problem, Duration wait) {
          err.printf(Locale.ROOT, "%s; trying again in %d s%n", ErrorReporter.oneLine(problem), wait.toSeconds());
          err.flush();
        }
      };
    }
    return new TerminalProgress(err, true);
  }

  /** One table over every topic; as JSON, the topic's summary, or an array of them for several topics. */
  private void print(List<BackupSummary> summaries, boolean singleTopic) {
    PrintWriter out = out();
    if (output.json) {
      Json.print(out, singleTopic && summaries.size() == 1 ? summaries.get(0) : summaries);
      return;
    }
    Table table = new Table("TOPIC", "PARTITION", "SEGMENTS", "RECORDS", "HOLE OFFSETS", "STORED", "NEXT OFFSET");
    for (BackupSummary summary : summaries) {
      for (BackupSummary.PartitionSummary p : summary.partitions()) {
        table.row(summary.topic(), p.partition(), p.segmentsStored(), p.recordsStored(), p.holeOffsetsStored(),
            ByteSizes.format(p.bytesStored()), p.nextOffset());
      }
    }
    table.print(out);
  }

  @Override
  public String advice(int exitCode) {
    if (exitCode == ExitCodes.UNAVAILABLE) {
      return "Every chain is intact; run the same command again once the broker and the store are reachable";
    }
    return null;
  }
}
