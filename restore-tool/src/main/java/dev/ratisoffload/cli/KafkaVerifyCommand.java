package dev.ratisoffload.cli;

import dev.ratisoffload.kafka.format.TopicSelection;
import dev.ratisoffload.kafka.read.ChainVerifier;
import dev.ratisoffload.kafka.read.KafkaReports;
import dev.ratisoffload.kafka.read.VerifyReport;
import dev.ratisoffload.store.ObjectStore;
import java.util.Optional;
import picocli.CommandLine.Command;

/** {@code offload kafka verify}: reads every segment back and proves every chain continuous. */
@Command(name = "verify",
    mixinStandardHelpOptions = true,
    description = {
        "Reads every topic manifest, consumer-group offset snapshot, offset map and segment of the selected Kafka"
            + " backups in full: each segment's "
            + "SHA-256 and structure, that it covers the range its name says, that consecutive segments join "
            + "with no gap or overlap and each names its predecessor's hash. Reports the holes (offsets the "
            + "broker had no record for: compaction, transaction markers, aborted records), which are not "
            + "lost data.",
        "Exits 3 when anything is missing, corrupt, reordered or out of place; 4 when the store cannot be read."},
    footerHeading = "%nExample:%n",
    footer = "  offload kafka verify --store s3://backups/kafka --cluster orders-prod --topic orders")
final class KafkaVerifyCommand extends KafkaReportCommand<VerifyReport> implements ErrorReporter.Advising {

  @Override
  VerifyReport read(ObjectStore store, String cluster, Optional<TopicSelection> topics) {
    return topics.isPresent() ? new ChainVerifier(store, 4).verify(cluster, topics.get()) : new ChainVerifier(store, 4).verify(cluster, Optional.empty());
  }

  @Override
  boolean isEmpty(VerifyReport report) {
    return report.topics().isEmpty() && report.problems().isEmpty();
  }

  @Override
  String text(VerifyReport report) {
    return KafkaReports.text(report);
  }

  @Override
  int conclude(VerifyReport report) {
    if (report.ok()) {
      return ExitCodes.OK;
    }
    err().println("offload kafka verify: " + report.problemCount() + " problem(s); first: "
        + ErrorReporter.oneLine(report.allProblems().get(0)) + ". Nothing was changed in the store");
    return ExitCodes.DATA;
  }

  @Override
  public String advice(int exitCode) {
    if (exitCode == ExitCodes.UNAVAILABLE) {
      return "Nothing was verified to the end; check --store and the credentials, then run it again";
    }
    return null;
  }
}
