package dev.ratisoffload.cli;

import dev.ratisoffload.restore.Selection;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** Which clusters and groups a read command looks at. */
public final class SelectionOptions {

  @Option(names = "--cluster", paramLabel = "ID", converter = Converters.Cluster.class,
      description = "Only this cluster (the nodes' offload.cluster.id). Default: every cluster.")
  String cluster;

  @Option(names = "--group", paramLabel = "UUID", split = ",", converter = Converters.Group.class,
      description = "Only these groups, by UUID (repeat or separate with commas). Default: every group.")
  List<String> groups = new ArrayList<>();

  Selection selection() {
    return new Selection(cluster, new java.util.LinkedHashSet<>(groups));
  }
}
