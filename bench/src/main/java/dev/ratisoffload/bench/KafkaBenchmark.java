package dev.ratisoffload.bench;

import static dev.ratisoffload.bench.Benchmarks.lng;
import static dev.ratisoffload.bench.Benchmarks.num;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Kafka backup and restore, for records of 100 bytes and of 1 KiB (unless {@code --kafka-record-bytes}
 * says other sizes), a topic of 4 partitions for each size.
 *
 * <p>The broker (one KRaft node), our side ({@link KafkaOffloadRun}) and the baseline ({@link
 * KafkaToolsBaseline}: Kafka's own producer and consumer performance tools) each run in a JVM of their
 * own, ours and the baseline's with the same heap; S3Proxy runs in this JVM. For each record size a
 * source topic is filled by the producer tool in a JVM of its own (in the tools' JVM the fill would compile
 * the producer tool's code before its first measured run, a warm-up our side does not get), then:
 *
 * <ul>
 *   <li>backup: the consumer tool reads the whole topic, then our one-shot backup stores it in S3;
 *   <li>restore: the producer tool writes as many records of the same size into a new empty topic of 4
 *       partitions with the restore's producer settings, then our restore (offsets preserved, verify pass
 *       first, every delivery checked) writes the newest backup into another new empty topic.
 * </ul>
 *
 * Runs alternate, the best of each side is kept, and the broker's count of records is checked after
 * every run of either side.
 */
final class KafkaBenchmark extends Benchmark {

  static final int PARTITIONS = 4;
  /** The heap of our side and of the baseline alike. */
  static final String PARTICIPANT_HEAP = "-Xmx1g";
  /**
   * The JVM options Kafka's start scripts give a broker: kafka-server-start.sh's heap, kafka-run-class.sh's
   * collector settings. With the JVM's defaults instead, the broker's CPU for the same run of records
   * varied two-fold from run to run, and both sides' figures with it.
   */
  static final String[] BROKER_JVM = {"-Xms1g", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
      "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent"};

  private final boolean backupRows;
  private final boolean restoreRows;
  private final List<Row> backups = new ArrayList<>();
  private final List<Row> restores = new ArrayList<>();
  /** Per workload, the median ratio of paired runs: a figure that the best runs of either side do not decide. */
  private final List<String> pairedRatios = new ArrayList<>();
  private ChildJvm broker;
  private ChildJvm ours;
  private ChildJvm tools;
  private String bootstrap;

  KafkaBenchmark(Setting setting, boolean backupRows, boolean restoreRows) {
    super(setting);
    this.backupRows = backupRows;
    this.restoreRows = restoreRows;
  }

  @Override
  void run() throws Exception {
    try (ChildJvm brokerJvm = ChildJvm.start("Kafka broker", jvmOptions("kafka-broker", "-Xmx1g", BROKER_JVM),
            BrokerServer.class, work.resolve("kafka-broker.log"));
        ChildJvm oursJvm = ChildJvm.start("offload kafka", jvmOptions("kafka-ours", PARTICIPANT_HEAP),
            KafkaOffloadRun.class, work.resolve("kafka-ours.log"), s3.endpoint().toString());
        ChildJvm toolsJvm = ChildJvm.start("Kafka's performance tools", jvmOptions("kafka-tools", PARTICIPANT_HEAP),
            KafkaToolsBaseline.class, work.resolve("kafka-tools.log"))) {
      broker = brokerJvm;
      ours = oursJvm;
      tools = toolsJvm;
      bootstrap = broker.call("bootstrap").get("bootstrap");
      for (int recordBytes : size.kafkaRecordBytes()) {
        runSize(recordBytes);
      }
    }
    rows.addAll(backups);
    rows.addAll(restores);
    notes.add(String.format("kafka: best of %d runs each; broker, ours and the tools in JVMs of their own (ours and"
        + " the tools %s), S3Proxy in the command's JVM; records/s over the whole call on both sides", size.reps(),
        PARTICIPANT_HEAP));
    notes.add("kafka: median ratio of paired runs (each of our runs against the baseline's run just before it): "
        + String.join(", ", pairedRatios));
  }

  private void runSize(int recordBytes) throws Exception {
    long records = size.kafkaRecords();
    String source = "source-" + recordBytes;
    broker.call("create " + source + " " + PARTITIONS);
    Map<String, String> fill;
    try (ChildJvm filler = ChildJvm.start("topic filler", jvmOptions("kafka-filler", PARTICIPANT_HEAP),
        KafkaToolsBaseline.class, work.resolve("kafka-filler.log"))) {
      fill = filler.call("produce " + bootstrap + " " + source + " " + records + " " + recordBytes);
    }
    requireRecords(source, records, "the producer tool");
    out.printf("kafka: topic %s, %d records of %d bytes in %d partitions, filled by the producer tool (in a JVM of"
        + " its own) in %.2f s%n", source, records, recordBytes, PARTITIONS, num(fill, "seconds"));
    String bucket = backupRows ? backups(source, recordBytes) : backup(source, "kafka-" + recordBytes);
    if (restoreRows) {
      restores(source, recordBytes, bucket);
    }
    Benchmarks.dropBucket(s3, bucket);
    broker.call("delete " + source);
  }

  /** Alternating runs of the consumer tool and of our backup; returns the bucket of the last backup. */
  private String backups(String source, int recordBytes) throws Exception {
    Best tool = new Best();
    Best backup = new Best();
    String last = null;
    for (int r = 1; r <= size.reps(); r++) {
      double brokerBefore = brokerCpu();
      Map<String, String> b = tools.call("consume " + bootstrap + " " + source + " " + size.kafkaRecords());
      double brokerForTool = brokerCpu() - brokerBefore;
      tool.add(b, recordBytes);

      String bucket = "kafka-" + recordBytes + "-" + r;
      s3.createBucket(bucket);
      brokerBefore = brokerCpu();
      long storeBefore = PublishPeer.processCpuNanos();
      Map<String, String> o = ours.call("backup " + bootstrap + " " + source + " " + bucket);
      double storeCpu = (PublishPeer.processCpuNanos() - storeBefore) / 1e9;
      double brokerForOurs = brokerCpu() - brokerBefore;
      backup.add(o, recordBytes);
      if (last != null) {
        Benchmarks.dropBucket(s3, last);
      }
      last = bucket;
      out.printf("  backup run %d (%d B): consumer tool %s (tool's own figure %.0f records/s; CPU: tool %.1f s,"
              + " broker %.1f s); ours %s, %d segments of %s, %.1f s in store requests (CPU: backup %.1f s,"
              + " broker %.1f s, store %.1f s)%n",
          r, recordBytes, Best.describe(b, recordBytes), num(b, "toolRate"), num(b, "cpuSeconds"), brokerForTool,
          Best.describe(o, recordBytes), lng(o, "segments"), Benchmarks.mib(lng(o, "bytesStored")),
          num(o, "storeSeconds"), num(o, "cpuSeconds"), brokerForOurs, storeCpu);
    }
    pairedRatios.add(String.format("backup %s %.3f", bytes(recordBytes), backup.medianRatioTo(tool)));
    double ratio = backup.best() / tool.best();
    backups.add(new Row(String.format("kafka backup: %s records of %s, %d partitions, to S3", count(), bytes(recordBytes),
        PARTITIONS), backup.text(), tool.text() + " (consumer tool)", ratio, ">= 0.80", ratio >= 0.8));
    return last;
  }

  /** One untimed backup, when only the restore is measured. */
  private String backup(String source, String bucket) throws Exception {
    s3.createBucket(bucket);
    ours.call("backup " + bootstrap + " " + source + " " + bucket);
    return bucket;
  }

  /** Alternating runs of the producer tool and of our restore, each into a new empty topic. */
  private void restores(String source, int recordBytes, String bucket) throws Exception {
    long records = size.kafkaRecords();
    Best tool = new Best();
    Best restore = new Best();
    for (int r = 1; r <= size.reps(); r++) {
      String perf = "perf-" + recordBytes + "-" + r;
      broker.call("create " + perf + " " + PARTITIONS);
      double brokerBefore = brokerCpu();
      Map<String, String> b = tools.call("produce " + bootstrap + " " + perf + " " + records + " " + recordBytes);
      double brokerForTool = brokerCpu() - brokerBefore;
      requireRecords(perf, records, "the producer tool");
      broker.call("delete " + perf);
      tool.add(b, recordBytes);

      String target = "restored-" + recordBytes + "-" + r;
      broker.call("create " + target + " " + PARTITIONS);
      brokerBefore = brokerCpu();
      long storeBefore = PublishPeer.processCpuNanos();
      Map<String, String> o = ours.call("restore " + bootstrap + " " + source + " " + bucket + " " + target);
      double storeCpu = (PublishPeer.processCpuNanos() - storeBefore) / 1e9;
      double brokerForOurs = brokerCpu() - brokerBefore;
      requireRecords(target, records, "the restore");
      broker.call("delete " + target);
      restore.add(o, recordBytes);
      out.printf("  restore run %d (%d B): producer tool %s (tool's own figure %.0f records/s; CPU: tool %.1f s,"
              + " broker %.1f s); ours %s, verify pass and checks %.2f s (CPU: restore %.1f s, broker %.1f s, store"
              + " %.1f s)%n", r, recordBytes, Best.describe(b, recordBytes), num(b, "toolRate"), num(b, "cpuSeconds"),
          brokerForTool, Best.describe(o, recordBytes), num(o, "verifySeconds"), num(o, "cpuSeconds"), brokerForOurs,
          storeCpu);
    }
    pairedRatios.add(String.format("restore %s %.3f", bytes(recordBytes), restore.medianRatioTo(tool)));
    double ratio = restore.best() / tool.best();
    restores.add(new Row(String.format("kafka restore: %s records of %s, %d partitions, preserve, verified", count(),
        bytes(recordBytes), PARTITIONS), restore.text(), tool.text() + " (producer tool)", ratio, ">= 0.80",
        ratio >= 0.8));
  }

  private double brokerCpu() throws Exception {
    return num(broker.call("cpu"), "cpuSeconds");
  }

  private void requireRecords(String topic, long expected, String writer) throws Exception {
    long found = lng(broker.call("records " + topic), "records");
    if (found != expected) {
      throw new IllegalStateException(writer + " left " + found + " records in " + topic + ", not " + expected);
    }
  }

  private String count() {
    int n = size.kafkaRecords();
    return n % 1_000_000 == 0 ? n / 1_000_000 + "M" : n % 1000 == 0 ? n / 1000 + "k" : String.valueOf(n);
  }

  private static String bytes(int recordBytes) {
    return recordBytes % 1024 == 0 ? recordBytes / 1024 + " KiB" : recordBytes + " B";
  }

  /** The runs of one side: the fastest (records per second over the whole call), and every run's rate. */
  private static final class Best {
    int recordBytes;
    final List<Double> rates = new ArrayList<>();

    void add(Map<String, String> reply, int recordBytes) {
      this.recordBytes = recordBytes;
      rates.add(lng(reply, "records") / num(reply, "seconds"));
    }

    double best() {
      return rates.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    }

    /** The median of this side's rate over the other's, run by run (the runs alternate, so pairs are neighbours). */
    double medianRatioTo(Best other) {
      double[] ratios = new double[rates.size()];
      for (int i = 0; i < ratios.length; i++) {
        ratios[i] = rates.get(i) / other.rates.get(i);
      }
      Arrays.sort(ratios);
      int mid = ratios.length / 2;
      return ratios.length % 2 == 1 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2;
    }

    String text() {
      double rate = best();
      return String.format("%,.0f records/s (%.1f MiB/s)", rate, rate * recordBytes / Size.MIB);
    }

    static String describe(Map<String, String> reply, int recordBytes) {
      long records = lng(reply, "records");
      double seconds = num(reply, "seconds");
      return String.format("%d records in %.2f s (%,.0f records/s, %.1f MiB/s)", records, seconds, records / seconds,
          records * (double) recordBytes / Size.MIB / seconds);
    }
  }
}
