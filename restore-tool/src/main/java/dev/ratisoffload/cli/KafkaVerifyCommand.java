package dev.ratisoffload.cli;

import dev.ratisoffload.kafka.read.ChainVerifier;
import dev.ratisoffload.kafka.read.KafkaReports;
import dev.ratisoffload.kafka.read.VerifyReport;
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

/** {@code offload kafka verify}: reads every segment back and proves every chain continuous. */
@Command(name = "verify",
    mixinStandardHelpOptions = true,
    description = {
        "Reads every topic manifest and every segment of the selected Kafka backups in full: each segment's "
            + "SHA-256 and structure, that it covers the range its name says, that consecutive segments join "
            + "with no gap or overlap and each names its predecessor's hash. Reports the holes (offsets the "
            + "broker had no record for: compaction, transaction markers, aborted records), which are not "
            + "lost data.",
        "Exits 3 when anything is missing, corrupt, reordered or out of place; 4 when the store cannot be read."},
    footerHeading = "%nExample:%n",
    footer = "  offload kafka verify --store s3://backups/kafka --cluster orders-prod --topic orders")
final class KafkaVerifyCommand implements Callable<Integer>, ErrorReporter.Advising {

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
      VerifyReport report = new ChainVerifier(store, 4).verify(cluster, Optional.ofNullable(topic));
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
      if (report.ok()) {
        return ExitCodes.OK;
      }
      spec.commandLine().getErr().println("offload kafka verify: " + report.problemCount() + " problem(s); first: "
          + ErrorReporter.oneLine(report.allProblems().get(0)) + ". Nothing was changed in the store");
      return ExitCodes.DATA;
    }
  }

  @Override
  public String advice(int exitCode) {
    if (exitCode == ExitCodes.UNAVAILABLE) {
      return "Nothing was verified to the end; check --store and the credentials, then run it again";
    }
    return null;
  }
}
