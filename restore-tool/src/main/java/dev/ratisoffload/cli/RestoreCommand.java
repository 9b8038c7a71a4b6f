package dev.ratisoffload.cli;

import dev.ratisoffload.primitives.ByteSizes;
import dev.ratisoffload.restore.ClusterRestorer;
import dev.ratisoffload.restore.GenerationChoice;
import dev.ratisoffload.restore.RestorePlan;
import dev.ratisoffload.restore.RestoreRequest;
import dev.ratisoffload.restore.RestoredGroup;
import dev.ratisoffload.restore.TransferListener;
import dev.ratisoffload.store.ObjectStore;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code offload restore}: brings a cluster's groups back into one peer's Ratis storage directory. */
@Command(name = "restore",
    mixinStandardHelpOptions = true,
    description = {
        "Restores groups of a cluster into one peer's Ratis storage directory (--data-dir): every group "
            + "of the cluster or those named, from its newest generation or the one chosen with --index "
            + "or --at. Run it once per peer, then start every peer with StartupOption.RECOVER.",
        "With --peer ID only the groups whose published configuration names that peer are restored; the "
            + "others are listed as skipped. Without it, every chosen group must name the same peers "
            + "(otherwise exit 2, with each peer's groups listed).",
        "Each group directory (named by the group's UUID) gets the snapshot files with their .md5 "
            + "sidecars, current/raft-meta (a term at least the snapshot's) and current/raft-meta.conf "
            + "(the generation's whole configuration: voting peers and listeners, every address and "
            + "priority; a peer moved with --peers keeps none of its old host's addresses). Every byte is "
            + "verified before it is moved into place; groups are staged beside their target and renamed in at "
            + "the end, so a failure leaves no group directory. An existing group directory is refused.",
        "Memory: chunks are held whole, up to 8 reads in flight holding 2 x reads + 2 chunks, with 64 MiB "
            + "of heap kept for the rest; less heap means fewer reads. A generation's chunks are at most 4 x "
            + "the plugin's offload.upload.chunk-size: 1MB (the default) needs at least 80 MiB of heap "
            + "(136 MiB for full speed), 4MB 128 MiB (352 MiB), 16MB 320 MiB (1216 MiB). With too little, "
            + "the restore exits 2 before writing anything and names the -Xmx to give "
            + "(OFFLOAD_JAVA_OPTS=-Xmx... for scripts/offload)."},
    footerHeading = "%nExamples:%n",
    footer = {
        "  offload restore --store s3://backups/ratis --cluster orders-prod \\",
        "      --peer n1 --data-dir /var/lib/ratis/n1",
        "  offload restore --store file:///mnt/backups --cluster orders-prod \\",
        "      --at 2026-05-01T06:00:00Z --peer n1 --data-dir /var/lib/ratis/n1 \\",
        "      --peers n1=10.0.1.1:9872,n2=10.0.1.2:9872,n3=10.0.1.3:9872"})
final class RestoreCommand extends StoreCommand implements ErrorReporter.Advising {

  @Mixin
  private ProgressOptions progress;

  @Option(names = "--cluster", required = true, paramLabel = "ID", converter = Converters.Cluster.class,
      description = "The cluster to restore (the nodes' offload.cluster.id).")
  private String cluster;

  @Option(names = "--group", paramLabel = "UUID", split = ",", converter = Converters.Group.class,
      description = "Only these groups, by UUID (repeat or separate with commas). Default: every group "
          + "of the cluster.")
  private List<String> groups = new ArrayList<>();

  @ArgGroup(exclusive = true)
  private Choice choice;

  static final class Choice {
    @Option(names = "--index", paramLabel = "INDEX",
        description = "The generation with this snapshot index (needs exactly one --group).")
    Long index;

    @Option(names = "--at", paramLabel = "TIME", converter = Converters.Time.class,
        description = "Each group's newest generation created at or before TIME (ISO-8601 instant, or a "
            + "date: its start, UTC).")
    Instant at;
  }

  @Option(names = "--peers", paramLabel = "ID=HOST:PORT,...",
      description = "New addresses for the peers, for a cluster that moves to other hosts or ports. A moved "
          + "peer keeps its priority and role; its old client and admin addresses are dropped (Ratis then "
          + "uses the new address) and a data-stream address becomes the new address. Ids with '=' or ',' "
          + "cannot be given here. Default: the addresses stored with each generation.")
  private String peers;

  @Option(names = "--peer", paramLabel = "ID",
      description = "The peer whose directory --data-dir is: restore only the groups whose configuration "
          + "names it (voting or listener). Default: every chosen group, which must then all name the same "
          + "peers.")
  private String peer;

  @Option(names = "--data-dir", required = true, paramLabel = "DIR",
      description = "The peer's Ratis storage directory (raft.server.storage.dir); created if missing. "
          + "Not a group directory, not empty.")
  private Path dataDir;

  /** One restored group, as reported. */
  record Restored(String group, long index, long term, long startTerm, int files, long bytes,
      List<String> peers, String directory) {}

  /** The whole report: {@code --json} prints it as one object. */
  record Report(String peer, List<Restored> restored, List<RestorePlan.Skipped> skipped) {}

  @Override
  public Integer call() {
    RestoreRequest request = request();
    try (ObjectStore store = openStore()) {
      ClusterRestorer restorer = new ClusterRestorer(store);
      RestorePlan plan = restorer.plan(request);
      TransferListener meter = ProgressMeter.create(progress.mode, spec.commandLine().getErr(), "restored");
      List<RestoredGroup> restored = restorer.restore(plan, meter);
      print(restored, plan.skipped());
      return ExitCodes.OK;
    }
  }

  private RestoreRequest request() {
    GenerationChoice generation = new GenerationChoice.Newest();
    if (choice != null && choice.index != null) {
      if (groups.size() != 1) {
        throw new ParameterException(spec.commandLine(),
            "--index names one generation of one group: give exactly one --group (use --at for several)");
      }
      if (choice.index < 0) {
        throw new ParameterException(spec.commandLine(), "--index must not be negative");
      }
      generation = new GenerationChoice.AtIndex(choice.index);
    } else if (choice != null && choice.at != null) {
      generation = new GenerationChoice.AtOrBefore(choice.at);
    }
    Map<String, String> addresses = Map.of();
    if (peers != null) {
      try {
        addresses = new Converters.Peers().convert(peers);
      } catch (RuntimeException e) {
        throw new ParameterException(spec.commandLine(), "--peers: " + e.getMessage());
      }
    }
    return new RestoreRequest(cluster, groups, generation, addresses, dataDir, peer);
  }

  private void print(List<RestoredGroup> restored, List<RestorePlan.Skipped> skipped) {
    List<Restored> rows = restored.stream().map(r -> new Restored(r.plan().group(), r.plan().id().index(),
        r.plan().id().term(), r.plan().term(), r.plan().manifest().files().size(), r.plan().bytes(),
        r.plan().peerLabels(),
        r.directory().toString())).toList();
    PrintWriter out = spec.commandLine().getOut();
    if (output.json) {
      Json.print(out, new Report(peer, rows, skipped));
      return;
    }
    Table table = new Table("GROUP", "INDEX", "TERM", "START TERM", "FILES", "SIZE", "PEERS");
    for (Restored r : rows) {
      table.row(r.group(), r.index(), r.term(), r.startTerm(), r.files(), ByteSizes.format(r.bytes()),
          String.join(",", r.peers()));
    }
    table.print(out);
    for (RestorePlan.Skipped skip : skipped) {
      out.println("Skipped group " + skip.group() + " (peers " + String.join(",", skip.peers()) + "): "
          + skip.reason() + ".");
    }
    out.println("Restored " + rows.size() + " group(s)" + (peer == null ? "" : " of peer " + peer) + " into "
        + dataDir.toAbsolutePath().normalize() + ". Start the peer with StartupOption.RECOVER (the default,"
        + " FORMAT, refuses existing group directories).");
    out.flush();
  }

  @Override
  public String advice(int exitCode) {
    String dir = dataDir == null ? "the data directory" : dataDir.toAbsolutePath().normalize().toString();
    if (exitCode == ExitCodes.DATA) {
      return "No group directory was written in " + dir + ". Find the damage with offload verify --all,"
          + " or restore an older generation with --index or --at";
    }
    if (exitCode == ExitCodes.UNAVAILABLE) {
      return "No group directory was written in " + dir + "; run the restore again when the store is"
          + " reachable";
    }
    return null;
  }
}
