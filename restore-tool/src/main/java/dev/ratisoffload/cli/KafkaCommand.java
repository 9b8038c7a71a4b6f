package dev.ratisoffload.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code offload kafka}: Kafka topics backed up into the same store, as chains of segments. */
@Command(name = "kafka",
    mixinStandardHelpOptions = true,
    description = "Backs up Kafka topics into the store as chains of immutable segments (one chain per "
        + "partition), lists and verifies them, removes their oldest segments by a retention policy, and restores them into a cluster, once or following.",
    subcommands = {KafkaBackupCommand.class, KafkaRestoreCommand.class, KafkaListCommand.class, KafkaVerifyCommand.class,
        KafkaGcCommand.class, CommandLine.HelpCommand.class},
    footerHeading = "%nExamples:%n",
    footer = {
        "  offload kafka backup --bootstrap-server kafka1:9092 --topic orders \\",
        "      --store s3://backups/kafka --cluster orders-prod --follow",
        "  offload kafka list --store s3://backups/kafka --cluster orders-prod",
        "  offload kafka verify --store s3://backups/kafka --cluster orders-prod --topic orders",
        "  offload kafka gc --store s3://backups/kafka --cluster orders-prod --keep-within 30d --apply",
        "  offload kafka restore --store s3://backups/kafka --cluster orders-prod --topic orders \\",
        "      --bootstrap-server kafka2:9092 --create-topic"})
final class KafkaCommand implements Runnable {

  @Spec
  private CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(),
        "a subcommand is required: backup, restore, list, verify or gc");
  }
}
