import dev.ratisoffload.cli.Converters;
import dev.ratisoffload.restore.GenerationChoice;
import dev.ratisoffload.restore.RestoreRequest;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * What the restore scripts restore, in the words of 'offload restore': the cluster, its groups, and which
 * generation of each. A picocli mixin, shared through JBang's //SOURCES.
 */
class RestoreSource {

  @Option(names = "--cluster", required = true, paramLabel = "ID", converter = Converters.Cluster.class,
      description = "The cluster to restore (the nodes' offload.cluster.id).")
  String cluster;

  @Option(names = "--group", paramLabel = "UUID", split = ",", converter = Converters.Group.class,
      description = "Only these groups, by UUID (repeat or separate with commas). Default: every group.")
  List<String> groups = new ArrayList<>();

  @Option(names = "--at", paramLabel = "TIME", converter = Converters.Time.class,
      description = "Each group's newest generation created at or before TIME (ISO-8601 instant, or a "
          + "date: its start, UTC). Default: each group's newest.")
  Instant at;

  GenerationChoice choice() {
    return at == null ? new GenerationChoice.Newest() : new GenerationChoice.AtOrBefore(at);
  }

  /** A restore of these groups (every selected one when null) into one data directory. */
  RestoreRequest request(List<String> onlyGroups, Map<String, String> addresses, Path dataDir) {
    return new RestoreRequest(cluster, onlyGroups == null ? groups : onlyGroups, choice(), addresses, dataDir);
  }
}
