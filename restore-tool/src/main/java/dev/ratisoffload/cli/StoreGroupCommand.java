package dev.ratisoffload.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code offload store}: the store itself, rather than what is in it. */
@Command(name = "store",
    mixinStandardHelpOptions = true,
    description = "Checks the store itself: whether it has the properties backups rest on.",
    subcommands = {StoreCheckCommand.class, CommandLine.HelpCommand.class},
    footerHeading = "%nExample:%n",
    footer = "  offload store check --store s3://backups/ratis --region eu-west-1")
final class StoreGroupCommand implements Runnable {

  @Spec
  private CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required: check");
  }
}
