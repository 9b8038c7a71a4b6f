package dev.ratisoffload.drill;

import dev.ratisoffload.cli.HelpOption;
import dev.ratisoffload.cli.OffloadCommand;
import dev.ratisoffload.cli.S3Options;
import dev.ratisoffload.plugin.SnapshotOffload;
import dev.ratisoffload.publish.PublishResult;
import dev.ratisoffload.store.S3Settings;
import dev.ratisoffload.store.StoreDescription;
import dev.ratisoffload.store.StoreUri;
import dev.ratisoffload.testkit.EmbeddedKafka;
import dev.ratisoffload.testkit.EmbeddedS3;
import dev.ratisoffload.testkit.RatisCluster;
import dev.ratisoffload.testkit.TempDirs;
import io.prometheus.client.CollectorRegistry;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The project's main job: a disaster-recovery drill, end to end. A 3-peer reference cluster with
 * several groups publishes generations through the offload plugin while clients write; a Kafka topic
 * is backed up into the same store with {@code offload kafka backup}; then everything is destroyed
 * and brought back with {@code offload restore} and {@code offload kafka restore}, exactly as an
 * operator runs them, and every key and record is checked against what the backups cover. It prints a
 * report of what was restored and verified and how long each step took, and exits 0 only when
 * everything matched.
 *
 * <p>By default the store is an embedded S3 server (S3Proxy) and the broker an embedded Kafka, both on
 * 127.0.0.1; {@code --store} and {@code --bootstrap-server} point the same drill at real ones. Every
 * run keeps its data under a prefix, cluster id and topic of its own (its run id).
 */
@Command(name = "drill",
    description = {
        "Runs a disaster-recovery drill: a 3-peer Ratis cluster publishes its groups' snapshots to the store "
            + "while clients write, a Kafka topic is backed up into the same store, everything is destroyed, "
            + "restored with offload restore and offload kafka restore, and every key and record is checked.",
        "Defaults: an embedded S3 server and an embedded Kafka broker on 127.0.0.1. A run keeps its data "
            + "under <store>/<run id>, cluster id <run id> and topic <run id>, and deletes it at the end "
            + "(unless --keep)."},
    footerHeading = "%nExit codes:%n",
    footer = {
        "  0  everything was restored and matched",
        "  1  a step failed or a check found a difference (the report says which)",
        "  2  invalid invocation",
        "",
        "Examples:",
        "  mvn -B -q -DskipTests -pl drill -am package exec:java",
        "  mvn -B -q -DskipTests -pl drill -am package exec:java \\",
        "      -Dexec.args=\"--store s3://my-backups/drills --region eu-west-1 --bootstrap-server kafka1:9092\""})
public final class Drill implements Callable<Integer> {

  static final int PEERS = 3;
  static final Duration LEADERS = Duration.ofSeconds(60);
  /** The recovery steps: what an operator waits for between deciding to restore and serving again. */
  static final List<String> RECOVERY = List.of("restore groups", "restart until serving", "kafka restore");

  @Spec
  private CommandSpec spec;

  @Mixin
  HelpOption help;

  @Option(names = "--store", paramLabel = "URI",
      description = "Store to back up into: s3://bucket/prefix or file:///path (the run writes under "
          + "<URI>/<run id>). Default: an embedded S3 server.")
  String store;

  @Mixin
  S3Options s3Options;

  /** The store --store and the S3 flags describe; null for the embedded S3 server. */
  private StoreDescription storeDescription;

  @Option(names = "--bootstrap-server", paramLabel = "HOST:PORT",
      description = "Kafka brokers to back up a topic from and restore it to (the run creates and deletes its own"
          + " topics). Default: an embedded broker.")
  String bootstrapServer;

  @Option(names = "--groups", paramLabel = "N", defaultValue = "3",
      description = "Raft groups of the cluster (default ${DEFAULT-VALUE}).")
  int groups;

  @Option(names = "--keys", paramLabel = "N", defaultValue = "1000",
      description = "Keys written to each group before its last snapshot (default ${DEFAULT-VALUE}); clients "
          + "keep writing while it is published.")
  int keys;

  @Option(names = "--partitions", paramLabel = "N", defaultValue = "3",
      description = "Partitions of the topic (default ${DEFAULT-VALUE}).")
  int partitions;

  @Option(names = "--records", paramLabel = "N", defaultValue = "1000",
      description = "Records written to each partition (default ${DEFAULT-VALUE}, at least 2): a consumer group"
          + " reads the first half before the backup and must resume at the next record after the restore.")
  int records;

  @Option(names = "--verbose", description = "Print the logs of Ratis, Kafka and the S3 server too.")
  boolean verbose;

  @Option(names = "--keep",
      description = "Keep the run's backups in --store and its restored topic on --bootstrap-server.")
  boolean keep;

  private final PrintStream out;

  public Drill() {
    this(System.out);
  }

  Drill(PrintStream out) {
    this.out = out;
  }

  public static void main(String[] args) {
    System.exit(run(System.out, args));
  }

  /** Runs the drill as {@link #main} does, printing to {@code out}; returns the exit code. */
  static int run(PrintStream out, String... args) {
    Drill drill = new Drill(out);
    return new CommandLine(drill).setOut(new java.io.PrintWriter(out, true))
        .setExecutionStrategy(parsed -> {
          quietLibraries(drill.verbose); // parsed, and before anything the drill runs makes a logger
          return new CommandLine.RunLast().execute(parsed);
        })
        .execute(args);
  }

  /** Keeps the very particular JUL logger configured (JUL holds loggers weakly). */
  private static final java.util.logging.Logger GRPC = java.util.logging.Logger.getLogger("org.apache.ratis.thirdparty.io.grpc");

  /**
   * The report is the drill's output: the servers' own logs (shutdown noise, start-up notices) only with
   * --verbose. slf4j-simple reads these when it creates a logger, so they are set first; a level set by the
   * caller wins.
   */
  private static void quietLibraries(boolean verbose) {
    Map<String, String> levels = new LinkedHashMap<>();
    levels.put("org.slf4j.simpleLogger.defaultLogLevel", verbose ? "info" : "off");
    for (String name : List.of("org.apache.ratis", "kafka", "org.apache.kafka", "state.change.logger", "org.gaul",
        "org.eclipse.jetty")) {
      levels.put("org.slf4j.simpleLogger.log." + name, verbose ? "warn" : "off");
    }
    levels.forEach((key, level) -> {
      if (System.getProperty(key) == null) {
        System.setProperty(key, level);
      }
    });
    GRPC.setLevel(verbose ? java.util.logging.Level.INFO : java.util.logging.Level.WARNING);
  }

  @Override
  public Integer call() throws Exception {
    validate();
    String runId = "drill-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + "-"
        + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
    Path work = Files.createTempDirectory("offload-drill-");
    try (Run run = new Run(runId, work)) {
      return run.execute() ? 0 : 1;
    } finally {
      TempDirs.delete(work);
    }
  }

  private void validate() {
    if (store == null && !s3Options.isEmpty()) {
      throw new ParameterException(spec.commandLine(),
          "the S3 flags (--endpoint, --region, --profile, --path-style, ...) describe --store: name the store too");
    }
    try {
      storeDescription = store == null ? null : s3Options.describe(store);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    for (Map.Entry<String, Integer> e : Map.of("--groups", groups, "--keys", keys, "--partitions", partitions,
        "--records", records).entrySet()) {
      if (e.getValue() < 1) {
        throw new ParameterException(spec.commandLine(), e.getKey() + " must be at least 1, not " + e.getValue());
      }
    }
    if (records < 2) {
      throw new ParameterException(spec.commandLine(), "--records must be at least 2 (a consumer group reads the first"
          + " half of each partition and must resume at a record after the restore), not " + records);
    }
  }

  /** Work on one item that may fail. */
  @FunctionalInterface
  interface ItemWork<T> {
    void run(T item) throws Exception;
  }

  /**
   * Runs the work on every item at once, each on a thread of its own, and returns when all have ended:
   * then it fails with the first failure, the others suppressed in it, so no work still runs (and reports)
   * while the failure is being told.
   */
  static <T> void inParallel(Collection<T> items, ItemWork<T> work) throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(Math.max(1, items.size()));
    try {
      List<Future<?>> all = new ArrayList<>();
      for (T item : items) {
        all.add(threads.submit(() -> {
          work.run(item);
          return null;
        }));
      }
      Exception first = null;
      for (Future<?> f : all) {
        try {
          f.get();
        } catch (ExecutionException e) {
          Exception failure = e.getCause() instanceof Exception cause ? cause : e;
          if (first == null) {
            first = failure;
          } else {
            first.addSuppressed(failure);
          }
        }
      }
      if (first != null) {
        throw first;
      }
    } finally {
      threads.shutdownNow();
    }
  }

  /** "1 group", "3 groups". */
  static String count(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  /** What a group's newest generation covers: the keys a restore from it must serve, and must not. */
  record Expected(long index, long term, SortedMap<String, String> served, SortedMap<String, String> absent) {}

  /** One drill run: its servers, its data, and its report. */
  private final class Run implements AutoCloseable {
    private final String runId;
    private final Path work;
    private final String topic;
    private final Report report = new Report(out);
    private EmbeddedS3 s3;
    private EmbeddedKafka kafka;
    private StoreTarget target;
    private String brokers;
    private String restoredTopic;
    private Map<RaftPeerId, Integer> ports;
    private final Map<RaftGroupId, Expected> expected =
        new ConcurrentSkipListMap<>(Comparator.comparing(g -> g.getUuid().toString()));
    private SortedMap<Integer, List<TopicRecords.Stored>> backedUp;
    /** Per partition, the offset the drill's consumer group committed before the backup. */
    private SortedMap<Integer, Long> groupCommitted;
    private RatisCluster cluster;
    private final Map<RaftPeerId, SnapshotOffload> offloads = new ConcurrentHashMap<>();
    private final Map<RaftGroupId, SortedMap<String, String>> written = new ConcurrentHashMap<>();
    private final Map<RaftGroupId, LiveWriter> writers = new ConcurrentHashMap<>();
    private RatisCluster restoredCluster;
    private boolean topicCreated;

    Run(String runId, Path work) {
      this.runId = runId;
      this.work = work;
      this.topic = runId;
    }

    boolean execute() {
      out.println("Disaster-recovery drill " + runId + " (work dir " + work + ")");
      boolean servers = report.step("start servers", true, this::startServers);
      boolean wrote = report.step("write keys", servers, this::writeKeys);
      boolean published = report.step("publish", wrote, this::publish);
      boolean written = report.step("write topic", servers, this::writeTopic);
      boolean backup = report.step("kafka backup", written, this::backupTopic);
      boolean destroyed = report.step("destroy", servers, this::destroy);
      boolean restored = report.step("restore groups", published && destroyed, this::restoreGroups);
      boolean serving = report.step("restart until serving", restored, this::restart);
      report.step("verify keys", serving, this::verifyKeys);
      boolean topicRestored = report.step("kafka restore", backup && destroyed, this::restoreTopic);
      report.step("compare records", topicRestored, this::compareRecords);
      report.step("group resumes", topicRestored, this::groupResumes);
      report.print(out, header(), RECOVERY);
      return report.passed();
    }

    private List<String> header() {
      List<String> lines = new ArrayList<>();
      lines.add("run id   " + runId);
      lines.add("store    " + (target == null ? "(none)" : target) + (s3 != null ? " (embedded S3Proxy)" : ""));
      lines.add("kafka    " + (brokers == null ? "(none)" : brokers) + (kafka != null ? " (embedded broker)" : ""));
      lines.add("cluster  " + PEERS + " peers, " + count(groups, "group") + ", cluster id " + runId);
      return lines;
    }

    private String startServers() throws Exception {
      // The S3 server and the broker start side by side: each takes seconds.
      inParallel(List.of("s3", "kafka"), server -> {
        if (server.equals("s3")) {
          startStore();
        } else if (bootstrapServer == null) {
          kafka = EmbeddedKafka.start();
        }
      });
      brokers = kafka != null ? kafka.bootstrapServers() : bootstrapServer;
      return "store " + target + ", kafka " + brokers;
    }

    private void startStore() throws IOException {
      if (storeDescription != null) {
        target = StoreTarget.forRun(storeDescription, runId);
        return;
      }
      s3 = EmbeddedS3.start(work.resolve("s3"));
      s3.createBucket("drill");
      // The AWS SDK's default credential chain, which the plugin and offload use, reads these.
      System.setProperty("aws.accessKeyId", s3.accessKey());
      System.setProperty("aws.secretAccessKey", s3.secretKey());
      target = StoreTarget.forRun(new StoreDescription(StoreUri.parse("s3://drill"),
          S3Settings.builder().endpoint(s3.endpoint()).region(s3.region()).pathStyle(true).build()), runId);
    }

    // ---- Ratis --------------------------------------------------------------------------------

    private String writeKeys() throws Exception {
      cluster = RatisCluster.builder(work.resolve("ratis")).peers(PEERS).groups(groups)
          .properties(peer -> target.pluginProperties(new RaftProperties(), runId))
          .attach(server -> {
            SnapshotOffload offload = SnapshotOffload.builder(server.raftServer(), server.properties())
                .registry(new CollectorRegistry()).withoutSchedule().attach();
            offloads.put(server.id(), offload);
            return offload;
          })
          .build().start();
      ports = cluster.ports();
      cluster.awaitLeaders(LEADERS);
      inParallel(cluster.groupIds(), this::firstGeneration);
      return count(groups, "group") + ": " + keys + " keys each, a first generation published after half of them;"
          + " a client keeps writing to each";
    }

    /**
     * Half the keys, a first generation, the other half, then a client that keeps writing: the restore
     * must pick the newest generation and serve exactly what it covers.
     */
    private void firstGeneration(RaftGroupId group) throws IOException {
      SortedMap<String, String> keysOf = new TreeMap<>(cluster.writeKeys(group, keys / 2, "a-"));
      snapshotAndPublish(group);
      keysOf.putAll(cluster.writeKeys(group, keys - keys / 2, "b-"));
      written.put(group, keysOf);
      LiveWriter writer = new LiveWriter(cluster.client(group), "live-");
      writers.put(group, writer);
      writer.awaitMore(20, Duration.ofSeconds(30));
    }

    private String publish() throws Exception {
      inParallel(cluster.groupIds(), group -> {
        LiveWriter writer = writers.get(group);
        PublishResult.Published newest = snapshotAndPublish(group);
        writer.awaitMore(20, Duration.ofSeconds(30)); // so that some writes are not covered
        expect(group, newest, written.get(group), writer.stop());
      });
      long live = expected.values().stream().mapToLong(e -> e.served().size() + e.absent().size()).sum()
          - (long) keys * groups;
      return "the newest generation of " + count(groups, "group") + " taken and published by its leader while "
          + live + " writes were acknowledged";
    }

    /**
     * The leader takes a snapshot and its plugin publishes it. A publish skipped because leadership moved
     * in between (an election on a busy machine) is tried again with the new leader.
     */
    private PublishResult.Published snapshotAndPublish(RaftGroupId group) throws IOException {
      PublishResult result = null;
      for (int attempt = 0; attempt < 3; attempt++) {
        cluster.snapshot(group);
        result = offloads.get(cluster.leaderOf(group)).publishNow(group);
        if (result instanceof PublishResult.Published p) {
          return p;
        }
        if (result instanceof PublishResult.Failed) {
          break;
        }
      }
      String why = result instanceof PublishResult.Failed f ? f.message()
          : ((PublishResult.Skipped) result).reason().label() + " " + ((PublishResult.Skipped) result).detail();
      throw new IOException("the leader of group " + group.getUuid() + " did not publish: " + why);
    }

    private void expect(RaftGroupId group, PublishResult.Published generation, SortedMap<String, String> before,
        SortedMap<String, LiveWriter.Ack> live) {
      SortedMap<String, String> served = new TreeMap<>(before);
      SortedMap<String, String> absent = new TreeMap<>();
      live.forEach((key, ack) -> (ack.index() <= generation.id().index() ? served : absent).put(key, ack.value()));
      expected.put(group, new Expected(generation.id().index(), generation.id().term(), served, absent));
    }

    private String restoreGroups() throws IOException {
      Path root = work.resolve("restored");
      for (RaftPeerId peer : ports.keySet()) {
        List<String> args = new ArrayList<>(List.of("restore"));
        args.addAll(target.flags());
        args.addAll(List.of("--cluster", runId, "--peer", peer.toString(),
            "--data-dir", root.resolve(peer.toString()).toString(),
            "--progress", "never"));
        offload(args);
      }
      for (Map.Entry<RaftGroupId, Expected> e : expected.entrySet()) {
        String snapshot = "snapshot." + e.getValue().term() + "_" + e.getValue().index();
        for (RaftPeerId peer : ports.keySet()) {
          Path file = root.resolve(peer.toString()).resolve(RatisCluster.groupDirName(e.getKey())).resolve("sm")
              .resolve(snapshot);
          if (!Files.isRegularFile(file)) {
            throw new IOException("offload restore did not write " + file + ": not the newest generation");
          }
        }
        report.restored(String.format("group %s: generation index %d (term %d) onto %d peers, %d keys",
            e.getKey().getUuid(), e.getValue().index(), e.getValue().term(), ports.size(),
            e.getValue().served().size()));
      }
      return count(expected.size(), "group") + " into the storage directories of " + ports.size() + " peers";
    }

    private String restart() throws IOException {
      restoredCluster = RatisCluster.builder(work.resolve("restored")).existingStorage().ports(ports).build().start();
      restoredCluster.awaitLeaders(LEADERS);
      for (RaftGroupId group : restoredCluster.groupIds()) {
        restoredCluster.readKeys(group, List.of("a-000000"));
      }
      return count(restoredCluster.groupIds().size(), "group") + " elected leaders and answer reads";
    }

    private String verifyKeys() throws Exception {
      Map<RaftGroupId, String> verified = new ConcurrentHashMap<>();
      inParallel(expected.keySet(), group -> verifyGroup(group, expected.get(group))
          .ifPresent(line -> verified.put(group, line)));
      expected.keySet().stream().filter(verified::containsKey).forEach(g -> report.verified(verified.get(g)));
      long served = expected.values().stream().mapToLong(x -> x.served().size()).sum();
      return served + " keys of " + count(expected.size(), "group") + " checked";
    }

    /** Checks one restored group; returns what it verified when it found no problem. */
    private Optional<String> verifyGroup(RaftGroupId group, Expected want) throws IOException {
      List<String> asked = new ArrayList<>(want.served().keySet());
      asked.addAll(want.absent().keySet());
      SortedMap<String, String> found = restoredCluster.readKeys(group, asked);
      int wrong = 0;
      for (Map.Entry<String, String> e : want.served().entrySet()) {
        if (!e.getValue().equals(found.get(e.getKey()))) {
          wrong++;
          if (wrong <= 5) {
            report.problem("group " + group.getUuid() + ": key " + e.getKey() + " is "
                + (found.containsKey(e.getKey()) ? "'" + found.get(e.getKey()) + "'" : "missing")
                + ", expected '" + e.getValue() + "'");
          }
        }
      }
      if (wrong > 5) {
        report.problem("group " + group.getUuid() + ": " + wrong + " keys wrong or missing in all");
      }
      List<String> unexpected = want.absent().keySet().stream().filter(found::containsKey).toList();
      if (!unexpected.isEmpty()) {
        report.problem("group " + group.getUuid() + ": " + unexpected.size() + " keys acknowledged after index "
            + want.index() + " are served, e.g. " + unexpected.get(0));
      }
      long count;
      try (var client = restoredCluster.client(group)) {
        count = client.count();
      }
      if (count != want.served().size()) {
        report.problem("group " + group.getUuid() + ": holds " + count + " keys, the generation covers "
            + want.served().size());
      }
      SortedMap<String, String> after = restoredCluster.writeKeys(group, 1, "after-restore-");
      boolean writes = after.equals(restoredCluster.readKeys(group, after.keySet()));
      if (!writes) {
        report.problem("group " + group.getUuid() + ": a write after the restore cannot be read back");
      }
      if (wrong > 0 || !unexpected.isEmpty() || count != want.served().size() || !writes) {
        return Optional.empty();
      }
      return Optional.of(String.format("group %s: all %d keys up to index %d served with their values, %d keys"
          + " in all; the %d writes acknowledged after it absent, as expected; new writes accepted",
          group.getUuid(), want.served().size(), want.index(), count, want.absent().size()));
    }

    // ---- Kafka --------------------------------------------------------------------------------

    private String writeTopic() throws IOException {
      TopicRecords.create(brokers, topic, partitions);
      topicCreated = true;
      long produced = TopicRecords.produce(brokers, topic, partitions, records);
      backedUp = TopicRecords.readAll(brokers, topic);
      groupCommitted = TopicRecords.readAndCommit(brokers, topic, group(), records / 2);
      return "topic " + topic + ": " + count(partitions, "partition") + ", " + produced + " records (keys, values, headers,"
          + " timestamps; some null keys and values); consumer group " + group() + " read and committed the first "
          + records / 2 + " of each partition";
    }

    private String backupTopic() throws IOException {
      List<String> args = new ArrayList<>(List.of("kafka", "backup", "--bootstrap-server", brokers, "--topic", topic));
      args.addAll(target.flags());
      args.addAll(List.of("--cluster", runId, "--progress", "never"));
      offload(args);
      return "topic " + topic + " into " + target;
    }

    private String destroy() throws IOException {
      List<String> done = new ArrayList<>();
      if (cluster != null) {
        stopCluster();
        TempDirs.delete(work.resolve("ratis"));
        done.add("the cluster stopped and its storage deleted");
      }
      if (kafka != null) {
        kafka.close();
        kafka = EmbeddedKafka.start();
        brokers = kafka.bootstrapServers();
        restoredTopic = topic;
        done.add("the broker replaced by an empty one at " + brokers);
      } else {
        if (topicCreated) {
          TopicRecords.deleteIfExists(brokers, topic);
          topicCreated = false;
          done.add("topic " + topic + " deleted");
        }
        restoredTopic = topic + "-restored";
      }
      return String.join("; ", done);
    }

    private String restoreTopic() throws IOException {
      List<String> args = new ArrayList<>(List.of("kafka", "restore"));
      args.addAll(target.flags());
      args.addAll(List.of("--cluster", runId, "--topic", topic, "--bootstrap-server", brokers,
          "--target-topic", restoredTopic, "--offsets", "preserve", "--create-topic", "--progress", "never",
          "--consumer-groups", java.util.regex.Pattern.quote(group())));
      offload(args);
      return "topic " + topic + " into " + restoredTopic + " on " + brokers;
    }

    private String compareRecords() throws IOException {
      SortedMap<Integer, List<TopicRecords.Stored>> actual = TopicRecords.readAll(brokers, restoredTopic);
      List<String> differences = TopicRecords.differences(backedUp, actual);
      long count = backedUp.values().stream().mapToLong(List::size).sum();
      report.restored(String.format("topic %s as %s: %s, %d records", topic, restoredTopic,
          count(actual.size(), "partition"), actual.values().stream().mapToLong(List::size).sum()));
      if (differences.isEmpty()) {
        report.verified(String.format("topic %s: all %d records of %s equal in offset, timestamp, key,"
            + " value and headers", restoredTopic, count, count(backedUp.size(), "partition")));
      } else {
        differences.forEach(d -> report.problem("topic " + restoredTopic + ": " + d));
      }
      return count + " records compared, " + differences.size() + " differences";
    }

    /** The drill's consumer group resumes on the restored topic at the record after its last commit. */
    private String groupResumes() throws IOException {
      SortedMap<Integer, TopicRecords.Stored> first = TopicRecords.firstPolled(brokers, restoredTopic, group());
      int problems = 0;
      for (Map.Entry<Integer, Long> committed : groupCommitted.entrySet()) {
        TopicRecords.Stored want = backedUp.get(committed.getKey()).stream()
            .filter(r -> r.offset() == committed.getValue()).findFirst().orElseThrow();
        String difference = TopicRecords.difference(want, first.get(committed.getKey()));
        if (difference != null) {
          problems++;
          report.problem("consumer group " + group() + ", partition " + committed.getKey() + ": the first record"
              + " after the restore is not the one after its last commit (" + difference + ")");
        }
      }
      if (problems == 0) {
        report.verified(String.format("consumer group %s: resumed on %s at the record after its last commit"
            + " (offsets %s)", group(), count(first.size(), "partition"), groupCommitted.values()));
      }
      return "consumer group " + group() + " on " + restoredTopic + ": " + problems + " partitions resumed elsewhere";
    }

    private String group() {
      return runId + "-readers";
    }

    // ---- the command line and clean-up --------------------------------------------------------

    /** Stops the writers, then every server of the published cluster. */
    private void stopCluster() throws IOException {
      for (LiveWriter writer : writers.values()) {
        writer.close();
      }
      writers.clear();
      cluster.close();
      cluster = null;
    }

    /** Runs {@code offload} in this JVM, exactly as an operator would on the command line. */
    private void offload(List<String> args) throws IOException {
      out.println("   $ offload " + String.join(" ", args));
      int code = OffloadCommand.run(args.toArray(String[]::new));
      if (code != 0) {
        throw new IOException("offload " + args.get(0) + (args.get(0).equals("kafka") ? " " + args.get(1) : "")
            + " exited " + code + " (its message is printed above)");
      }
    }

    @Override
    public void close() {
      Stream.<Report.Work>of(
          () -> {
            if (cluster != null) {
              stopCluster();
            }
            return null;
          },
          () -> {
            if (restoredCluster != null) {
              restoredCluster.close();
            }
            return null;
          },
          () -> {
            if (!keep && kafka == null && brokers != null) {
              for (String t : topicCreated ? List.of(topic, restoredTopic) : List.of(restoredTopic)) {
                if (t != null) {
                  TopicRecords.deleteIfExists(brokers, t);
                }
              }
              if (groupCommitted != null) {
                TopicRecords.deleteGroup(brokers, group());
              }
            }
            return null;
          },
          () -> {
            if (kafka != null) {
              kafka.close();
            }
            return null;
          },
          () -> {
            if (!keep && s3 == null && target != null) {
              try {
                out.println("deleted the run's " + target.deleteAll() + " objects from " + target);
              } catch (RuntimeException e) {
                throw new IOException("the run's objects in " + target + " were not deleted: " + e.getMessage(), e);
              }
            }
            return null;
          },
          () -> {
            if (s3 != null) {
              s3.close();
            }
            return null;
          }).forEach(work -> {
            try {
              work.run();
            } catch (Exception e) {
              out.println("clean-up: " + e.getMessage());
            }
          });
    }
  }
}
