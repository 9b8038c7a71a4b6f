package dev.ratisoffload.cli;

import picocli.CommandLine.Option;

/**
 * {@code -h}/{@code --help}, for the scripts and the drill that run beside {@code offload} without its
 * version: picocli's standard help options would add a {@code --version} they have nothing to print for.
 */
public final class HelpOption {

  @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
  boolean help;
}
