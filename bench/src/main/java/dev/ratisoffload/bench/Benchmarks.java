package dev.ratisoffload.bench;

import dev.ratisoffload.io.DurableFiles;
import dev.ratisoffload.plugin.OffloadConfigKeys;
import dev.ratisoffload.testkit.EmbeddedS3;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs every benchmark against embedded servers on 127.0.0.1 and prints one table: workload, our
 * figure, the baseline's figure measured in the same run, their ratio, the target, and whether it is
 * met.
 *
 * <pre>
 * --size small|full   small: a 32 MiB snapshot, 50 groups and Kafka topics of 50,000 records, for CI;
 *                     full: 1 GiB, 1,000 groups and topics of 1,000,000 records
 * --only a,b          run only these benchmarks: publish (with incremental and restore), cost, kafka-backup,
 *                     kafka-restore (kafka: both), scale
 * --work DIR          where to keep data and the participants' logs (default: a new temporary directory)
 * --keep              keep the work directory
 * --rate N            client writes per second of the cost benchmark
 * --bandwidth SIZE    offload.upload.bandwidth of the cost benchmark's publishing peer, e.g. 32MB (0: none;
 *                     default: the plugin's default); the publish benchmark always runs without a budget
 * --records N         records of each Kafka topic (default: 50,000 small, 1,000,000 full)
 * --kafka-record-bytes N,N  the record sizes of the Kafka benchmarks, a topic each (default: 100,1024)
 * --reps N            runs of each side of each measurement (default: 1 small, 5 full): the best run of
 *                     each side of a throughput measurement is kept, the cost benchmark pools them all
 * --profile           record JFR profiles of the publishing and restoring processes, the Kafka broker, our
 *                     Kafka side and Kafka's tools in the work directory
 * </pre>
 *
 * Benchmarks are not tests: the exit code is 0 whether or not targets are met, and non-zero only when
 * a benchmark could not run.
 */
public final class Benchmarks {

  static final Set<String> ALL = new LinkedHashSet<>(List.of("publish", "cost", "kafka-backup", "kafka-restore",
      "scale"));
  /** Names that stand for several benchmarks in {@code --only}. */
  static final Map<String, List<String>> GROUPS = Map.of("kafka", List.of("kafka-backup", "kafka-restore"));

  private final PrintStream out;
  private final Size size;
  private final Set<String> only;
  private final Path work;
  private final boolean profile;
  private final String bandwidth;
  private final List<Row> rows = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();

  Benchmarks(PrintStream out, Size size, Set<String> only, Path work, boolean profile, String bandwidth) {
    this.out = out;
    this.size = size;
    this.only = only;
    this.work = work;
    this.profile = profile;
    this.bandwidth = bandwidth;
  }

  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out));
  }

  static int run(String[] args, PrintStream out) throws Exception {
    String sizeName = "small";
    Set<String> only = ALL;
    Path work = null;
    boolean keep = false;
    boolean profile = false;
    int rate = 0;
    int records = 0;
    int reps = 0;
    List<Integer> recordBytes = null;
    String bandwidth = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--size" -> sizeName = args[++i];
        case "--only" -> only = only(args[++i]);
        case "--work" -> work = Path.of(args[++i]);
        case "--keep" -> keep = true;
        case "--profile" -> profile = true;
        case "--rate" -> rate = Integer.parseInt(args[++i]);
        case "--records" -> records = Integer.parseInt(args[++i]);
        case "--reps" -> reps = Integer.parseInt(args[++i]);
        case "--kafka-record-bytes" -> {
          recordBytes = recordSizes(args[++i]);
          if (recordBytes == null) {
            out.println("--kafka-record-bytes takes distinct sizes in bytes, each at least 1, such as 100,1024; not "
                + args[i]);
            return 2;
          }
        }
        case "--bandwidth" -> bandwidth = args[++i];
        default -> {
          out.println("unknown option " + args[i]
              + "; usage: --size small|full [--only publish,cost,kafka,scale] [--work DIR] [--keep] [--rate N]"
              + " [--records N] [--kafka-record-bytes N,N] [--reps N] [--bandwidth SIZE] [--profile]");
          return 2;
        }
      }
    }
    if (!ALL.containsAll(only)) {
      out.println("--only takes a list of " + ALL + " (kafka: both kafka benchmarks), not " + only);
      return 2;
    }
    if (bandwidth != null) {
      try {
        BlobCluster.bandwidth(Map.of(OffloadConfigKeys.Upload.BANDWIDTH_KEY, bandwidth));
      } catch (IllegalArgumentException e) {
        out.println("--bandwidth: " + e.getMessage());
        return 2;
      }
    }
    boolean ownsWork = work == null;
    work = ownsWork ? Files.createTempDirectory("offload-bench-") : Files.createDirectories(work);
    try {
      Size size = Size.of(sizeName);
      if (rate > 0) {
        size = size.withLoadRate(rate);
      }
      if (records > 0) {
        size = size.withKafkaRecords(records);
      }
      if (reps > 0) {
        size = size.withReps(reps);
      }
      if (recordBytes != null) {
        size = size.withKafkaRecordBytes(recordBytes);
      }
      new Benchmarks(out, size, only, work, profile, bandwidth).runAll();
      return 0;
    } finally {
      if (ownsWork && !keep && !profile) {
        DurableFiles.deleteTree(work);
      }
    }
  }

  /** Distinct positive sizes from a list such as {@code 100,1024}; null when it is not one. */
  static List<Integer> recordSizes(String list) {
    try {
      List<Integer> sizes = Arrays.stream(list.split(",")).map(String::trim).map(Integer::valueOf).toList();
      boolean valid = sizes.stream().allMatch(n -> n > 0) && sizes.stream().distinct().count() == sizes.size();
      return valid ? sizes : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  void runAll() throws Exception {
    String started = ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
    out.printf("Benchmarks, size %s (snapshot %s in %d files, %d groups, Kafka topics of %,d records), started %s%n",
        size.name(), size.snapshotText(), size.files(), size.groups(), size.kafkaRecords(), started);
    out.printf("machine: %s%n", Machine.describe());
    out.printf("work directory: %s%n", work);
    try (EmbeddedS3 s3 = EmbeddedS3.start(work.resolve("s3"))) {
      Benchmark.Setting setting = new Benchmark.Setting(size, work, s3, profile, rows, notes, out);
      if (only.contains("publish")) {
        new PublishBenchmark(setting).run();
      } else {
        rows.add(Row.notRun("publish " + size.snapshotText(), ">= 0.80", "not run (--only)"));
        rows.add(Row.notRun("restore " + size.snapshotText(), ">= 0.80", "not run (--only)"));
      }
      if (only.contains("cost")) {
        new CostBenchmark(setting, bandwidth).run();
      } else {
        rows.add(Row.notRun("cost: p99 write latency while publishing", "<= 1.25", "not run (--only)"));
      }
      boolean kafkaBackup = only.contains("kafka-backup");
      boolean kafkaRestore = only.contains("kafka-restore");
      if (kafkaBackup || kafkaRestore) {
        new KafkaBenchmark(setting, kafkaBackup, kafkaRestore).run();
      }
      if (!kafkaBackup) {
        rows.add(Row.notRun("kafka backup", ">= 0.80", "not run (--only)"));
      }
      if (!kafkaRestore) {
        rows.add(Row.notRun("kafka restore", ">= 0.80", "not run (--only)"));
      }
      if (only.contains("scale")) {
        new ScaleBenchmark(setting).run();
      } else {
        rows.add(Row.notRun("scale: " + size.groups() + " groups, one pass", "completes", "not run (--only)"));
      }
    }
    out.println();
    printTable(out, rows);
    out.println();
    notes.forEach(n -> out.println("note: " + n));
  }

  /** The benchmarks {@code --only} names, its group names expanded. */
  static Set<String> only(String list) {
    Set<String> names = new LinkedHashSet<>();
    for (String name : list.split(",")) {
      names.addAll(GROUPS.getOrDefault(name, List.of(name)));
    }
    return names;
  }

  static void printTable(PrintStream out, List<Row> rows) {
    String[] header = {"workload", "ours", "baseline", "ratio", "target", "met?"};
    int[] width = new int[header.length];
    List<String[]> cells = new ArrayList<>();
    for (Row r : rows) {
      cells.add(new String[] {r.workload(), r.ours(), r.baseline(), r.ratioText(), r.target(), r.metText()});
    }
    for (int i = 0; i < header.length; i++) {
      width[i] = header[i].length();
      for (String[] c : cells) {
        width[i] = Math.max(width[i], c[i].length());
      }
    }
    out.println(line(header, width));
    String[] rule = new String[header.length];
    for (int i = 0; i < rule.length; i++) {
      rule[i] = "-".repeat(width[i]);
    }
    out.println(line(rule, width));
    cells.forEach(c -> out.println(line(c, width)));
  }

  private static String line(String[] cells, int[] width) {
    StringBuilder s = new StringBuilder("|");
    for (int i = 0; i < cells.length; i++) {
      s.append(' ').append(String.format("%-" + width[i] + "s", cells[i])).append(" |");
    }
    return s.toString();
  }

  static String mib(long bytes) {
    return String.format("%.1f MiB", bytes / (double) Size.MIB);
  }

  static String rate(long bytes, double seconds) {
    return String.format("%.1f MiB/s", bytes / (double) Size.MIB / seconds);
  }

  static double num(Map<String, String> reply, String key) {
    return Double.parseDouble(reply.get(key));
  }

  static long lng(Map<String, String> reply, String key) {
    return Long.parseLong(reply.get(key));
  }

  /** Removes a bucket's objects directly from S3Proxy's directory, to keep the disk from filling. */
  static void dropBucket(EmbeddedS3 s3, String bucket) throws IOException {
    DurableFiles.deleteTree(s3.dataDir().resolve(bucket));
  }

  /** A description of this machine, for the record. */
  static final class Machine {
    static String describe() {
      String cpu = "unknown CPU";
      try {
        cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
            .findFirst().map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse(cpu);
      } catch (IOException ignored) {
        // not Linux
      }
      long memory = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
          .getTotalMemorySize();
      return String.format("%d CPUs (%s), %.1f GiB memory, Java %s (%s)",
          Runtime.getRuntime().availableProcessors(), cpu, memory / (1024.0 * 1024 * 1024),
          System.getProperty("java.version"), System.getProperty("java.vm.name"));
    }
  }
}
