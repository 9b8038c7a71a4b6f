package dev.ratisoffload.cli;

import dev.ratisoffload.store.ObjectStore;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** What every subcommand that reads the store shares: the store and output flags, and opening the store. */
abstract class StoreCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Mixin
  StoreOptions storeOptions;

  @Mixin
  OutputOptions output;

  /** The {@code offload} command this one runs under, which knows how to open a store and tell the time. */
  final OffloadCommand offload() {
    return (OffloadCommand) spec.root().userObject();
  }

  /** Opens the store the flags name. */
  final ObjectStore openStore() {
    return offload().openStore(storeOptions);
  }

  final PrintWriter out() {
    return spec.commandLine().getOut();
  }

  final PrintWriter err() {
    return spec.commandLine().getErr();
  }
}
