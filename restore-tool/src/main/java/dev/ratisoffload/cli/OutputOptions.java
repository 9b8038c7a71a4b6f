package dev.ratisoffload.cli;

import picocli.CommandLine.Option;

/** Tables for people, JSON for scripts. */
public final class OutputOptions {

  @Option(names = "--json", description = "Print JSON instead of a table, for scripts.")
  boolean json;
}
