package dev.ratisoffload.cli;

import dev.ratisoffload.kafka.read.BackupLister;
import dev.ratisoffload.kafka.read.KafkaReports;
import dev.ratisoffload.kafka.read.ListReport;
import dev.ratisoffload.restore.MissingBackupException;
import dev.ratisoffload.store.ObjectStore;
import java.io.PrintWriter;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code offload kafka list}: what is backed up, per topic and partition, from headers alone. */
@Command(name = "list",
    mixinStandardHelpOptions = true,
    description = {
        "Shows the Kafka backups of a cluster: per topic (and topic id: a topic deleted and created again is "
            + "listed twice) and partition, the offsets covered, records, hole offsets, segments, bytes stored "
            + "and the newest record's time. Reads each segment's header only; offload kafka verify reads all.",
        "Exits 3 when nothing is stored for the selection or a segment header cannot be read."},
    footerHeading = "%nExample:%n",
    footer = "  offload kafka list --store s3://backups/kafka --cluster orders-prod --topic orders --json")
final class KafkaListCommand implements Callable<Integer> {

  @ParentCommand
  private KafkaCommand kafka;

  @Spec
  private CommandSpec spec;

  @Mixin
  private StoreOptions storeOptions;

  @Mixin
  private OutputOptions output;

  @Option(names = "--cluster", required = true, paramLabel = "ID", converter = Converters.Cluster.class,
      description = "The name the backups are stored under.")
  private String cluster;

  @Option(names = "--topic", paramLabel = "TOPIC", description = "Only this topic.")
  private String topic;

  @Override
  public Integer call() {
    try (ObjectStore store = kafka.parent.openStore(storeOptions)) {
      ListReport report = new BackupLister(store, 8).list(cluster, Optional.ofNullable(topic));
      if (report.topics().isEmpty() && report.problems().isEmpty()) {
        throw new MissingBackupException("no Kafka backup of " + (topic == null ? "any topic" : "topic " + topic)
            + " of cluster " + cluster + " is stored in " + store.describe());
      }
      PrintWriter out = spec.commandLine().getOut();
      if (output.json) {
        Json.print(out, report);
      } else {
        out.print(KafkaReports.text(report));
        out.flush();
      }
      long problems = report.problems().size() + report.topics().stream()
          .flatMap(t -> t.partitions().stream()).mapToLong(p -> p.problems().size()).sum();
      if (problems > 0) {
        spec.commandLine().getErr().println("offload kafka list: " + problems + " problem(s) found; run offload"
            + " kafka verify for a full check");
        return ExitCodes.DATA;
      }
      return ExitCodes.OK;
    }
  }
}
