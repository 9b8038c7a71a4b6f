package dev.ratisoffload.cli;

import dev.ratisoffload.kafka.format.TopicSelection;
import dev.ratisoffload.kafka.read.BackupLister;
import dev.ratisoffload.kafka.read.KafkaReports;
import dev.ratisoffload.kafka.read.ListReport;
import dev.ratisoffload.store.ObjectStore;
import java.util.Optional;
import picocli.CommandLine.Command;

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
final class KafkaListCommand extends KafkaReportCommand<ListReport> {

  @Override
  ListReport read(ObjectStore store, String cluster, Optional<TopicSelection> topics) {
    return topics.isPresent() ? new BackupLister(store, 8).list(cluster, topics.get()) : new BackupLister(store, 8).list(cluster, Optional.empty());
  }

  @Override
  boolean isEmpty(ListReport report) {
    return report.topics().isEmpty() && report.problems().isEmpty();
  }

  @Override
  String text(ListReport report) {
    return KafkaReports.text(report);
  }

  @Override
  int conclude(ListReport report) {
    long problems = report.problems().size() + report.topics().stream()
        .flatMap(t -> t.partitions().stream()).mapToLong(p -> p.problems().size()).sum();
    if (problems > 0) {
      err().println("offload kafka list: " + problems + " problem(s) found; run offload"
          + " kafka verify for a full check");
      return ExitCodes.DATA;
    }
    return ExitCodes.OK;
  }
}
