package dev.ratisoffload.cli;

import picocli.CommandLine.ParentCommand;

/** A subcommand of {@code offload} itself that reads the store: list, verify, restore, status, gc. */
abstract class OffloadStoreCommand extends StoreCommand {

  @ParentCommand
  OffloadCommand parent;

  @Override
  final OffloadCommand offload() {
    return parent;
  }
}
