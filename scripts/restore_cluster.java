///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 17+
//DEPS dev.ratisoffload:restore-tool:0.1.0-SNAPSHOT
//SOURCES lib/RestoreSource.java

import dev.ratisoffload.cli.Converters;
import dev.ratisoffload.cli.ExitCodes;
import dev.ratisoffload.cli.HelpOption;
import dev.ratisoffload.cli.OffloadCommand;
import dev.ratisoffload.cli.StoreOptions;
import dev.ratisoffload.primitives.ByteSizes;
import dev.ratisoffload.restore.ClusterRestorer;
import dev.ratisoffload.restore.GenerationVerifier;
import dev.ratisoffload.restore.GroupPlan;
import dev.ratisoffload.restore.InvalidRestoreRequestException;
import dev.ratisoffload.restore.PeerSelection;
import dev.ratisoffload.restore.RestorePlan;
import dev.ratisoffload.restore.RestoreRequest;
import dev.ratisoffload.restore.TransferListener;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Restores every group of a cluster into the data directories of all its peers, as a peers file names them. */
@Command(name = "restore_cluster",
    description = {
        "Restores a whole Ratis cluster from the generations the offload plugin published: every group of "
            + "--cluster (or those named with --group) into the storage directory of every peer the "
            + "group has, as the peers file lists them. In order:",
        "  1. chooses each group's generation once (the newest, or the newest at or before --at), so "
            + "that every peer gets the same one, and verifies every byte of each;",
        "  2. restores, peer by peer, the groups whose configuration names the peer (voting or listener), "
            + "into the peer's data directory (what 'offload restore --peer ID --data-dir DIR --peers ...' "
            + "does, with the same selection), writing the addresses of the peers file into each group's "
            + "configuration (current/raft-meta.conf), every other field of it kept;",
        "  3. prints how to start each peer: its storage directory, its address, its groups and their "
            + "peers. Every peer must start with RaftStorage.StartupOption.RECOVER.",
        "Nothing is written when a generation is missing or damaged, or when a peer's directory already "
            + "holds one of the groups. The peers' processes must be stopped.",
        "",
        "The peers file has one line per peer: the peer id (as Ratis knows it), the address the peer "
            + "will listen on (host:port; the cluster may come back on new addresses), and its storage "
            + "directory (raft.server.storage.dir; relative paths are taken from the file's directory). "
            + "Fields are separated by blanks; the directory is the rest of the line. '#' starts a "
            + "comment. Every peer of every restored group must be listed:",
        "  # peer  address          storage directory",
        "  n1      10.0.2.1:9872    /var/lib/ratis/n1",
        "  n2      10.0.2.2:9872    /var/lib/ratis/n2",
        "  n3      10.0.2.3:9872    /var/lib/ratis/n3",
        "With --peer, only the named peers' directories are written (run it on each host with that "
            + "host's peers, and the same --at on every host); verification and instructions still cover "
            + "every group.",
        ""},
    footerHeading = "%nExamples:%n",
    footer = {
        "  jbang scripts/restore_cluster.java --store s3://backups/ratis \\",
        "      --cluster orders-prod --peers-file peers.txt",
        "  jbang scripts/restore_cluster.java --store file:///mnt/backups \\",
        "      --cluster orders-prod --peers-file peers.txt \\",
        "      --at 2026-05-01T06:00:00Z --peer n1",
        "",
        "Exit codes:",
        "  0  every listed peer restored",
        "  2  invalid invocation or peers file (nothing written)",
        "  3  a generation missing, corrupt or inconsistent (nothing written)",
        "  4  store unreachable (nothing written, or only the peers reported)",
        "  5  target refused: a group directory exists, another cluster's",
        "     directory, or it cannot be written"})
public class restore_cluster implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Mixin
  HelpOption help;

  @Mixin
  StoreOptions storeOptions;

  @Mixin
  RestoreSource source;

  @Option(names = "--peers-file", required = true, paramLabel = "FILE",
      description = "The peers: one line 'PEER-ID HOST:PORT STORAGE-DIR' each (see above).")
  Path peersFile;

  @Option(names = "--peer", paramLabel = "ID", split = ",",
      description = "Write only these peers' directories (repeat or separate with commas). Default: all.")
  List<String> onlyPeers = new ArrayList<>();

  @Option(names = "--verbose", description = "On failure, also print the stack trace.")
  boolean verbose;

  /** One line of the peers file. */
  record Peer(String id, String address, Path dataDir) {}

  public static void main(String... args) {
    System.exit(OffloadCommand.runCommand(new restore_cluster(), args));
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    List<Peer> peers = readPeersFile();
    Map<String, String> addresses = new LinkedHashMap<>();
    peers.forEach(p -> addresses.put(p.id(), p.address()));
    for (String id : onlyPeers) {
      if (!addresses.containsKey(id)) {
        throw new ParameterException(spec.commandLine(), "--peer " + id + ": no such peer in " + peersFile);
      }
    }
    try (ObjectStore store = storeOptions.open()) {
      ClusterRestorer restorer = new ClusterRestorer(store);
      RestorePlan plan;
      try {
        plan = restorer.choose(source.request(null, addresses, peers.get(0).dataDir()));
      } catch (InvalidRestoreRequestException e) {
        throw new InvalidRestoreRequestException(peersFile + ": " + e.getMessage()
            .replace("--peers gives", "the peers file gives").replace("--peers names", "the peers file names"));
      }
      if (!verify(store, plan, out)) {
        return ExitCodes.DATA;
      }
      Map<Peer, RestorePlan> hosted = new LinkedHashMap<>();
      peers.forEach(p -> hosted.put(p, PeerSelection.forPeer(plan, p.id())));
      List<Peer> targets = peers.stream()
          .filter(p -> onlyPeers.isEmpty() || onlyPeers.contains(p.id())).toList();
      Map<Peer, RestorePlan> writes = new LinkedHashMap<>();
      for (Peer peer : targets) {
        List<GroupPlan> mine = hosted.get(peer).groups();
        if (!mine.isEmpty()) {
          RestoreRequest request = source.request(mine.stream().map(GroupPlan::group).toList(), addresses,
              peer.dataDir());
          writes.put(peer, new RestorePlan(request, mine, hosted.get(peer).skipped()));
        }
      }
      // All or nothing across peers: every target is checked before the first is written.
      try {
        writes.values().forEach(restorer::check);
      } catch (InvalidRestoreRequestException e) {
        throw new InvalidRestoreRequestException(peersFile + ": " + e.getMessage()
            .replace("--data-dir ", "storage directory "));
      }
      List<String> done = new ArrayList<>();
      for (Peer peer : targets) {
        RestorePlan write = writes.get(peer);
        if (write == null) {
          out.println("restore: peer " + peer.id() + " hosts none of the restored groups; nothing to write");
          continue;
        }
        try {
          restorer.restore(write, TransferListener.NONE);
        } catch (RuntimeException e) {
          if (!done.isEmpty()) {
            spec.commandLine().getErr().println("restore_cluster: peers " + String.join(", ", done)
                + " were restored completely before this failure; run again with --peer for the others");
          }
          throw e;
        }
        done.add(peer.id());
        out.println("restore: peer " + peer.id() + ": " + write.groups().size() + " group(s) into "
            + peer.dataDir());
      }
      printStartup(plan, targets, hosted, out);
      return ExitCodes.OK;
    }
  }

  /** Reads and checks the peers file; every defect is a usage error naming the line. */
  private List<Peer> readPeersFile() {
    List<String> lines;
    try {
      lines = Files.readAllLines(peersFile, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ParameterException(spec.commandLine(), "--peers-file: cannot read " + peersFile + ": " + e);
    }
    Path base = peersFile.toAbsolutePath().getParent();
    List<Peer> peers = new ArrayList<>();
    Set<Path> dirs = new LinkedHashSet<>();
    for (int n = 0; n < lines.size(); n++) {
      String line = lines.get(n).replaceFirst("#.*", "").strip();
      if (line.isEmpty()) {
        continue;
      }
      String[] fields = line.split("\\s+", 3);
      String where = peersFile + " line " + (n + 1) + ": ";
      if (fields.length < 3) {
        throw new ParameterException(spec.commandLine(), where + "expected 'PEER-ID HOST:PORT STORAGE-DIR',"
            + " found '" + line + "'");
      }
      try {
        new Converters.Peers().convert(fields[0] + "=" + fields[1]);
      } catch (RuntimeException e) {
        throw new ParameterException(spec.commandLine(), where + "'" + fields[1] + "' is not an address"
            + " host:port (e.g. 10.0.2.1:9872)");
      }
      Path dir = base.resolve(fields[2].strip()).normalize();
      if (peers.stream().anyMatch(p -> p.id().equals(fields[0]))) {
        throw new ParameterException(spec.commandLine(), where + "peer " + fields[0] + " is listed twice");
      }
      if (!dirs.add(dir)) {
        throw new ParameterException(spec.commandLine(), where + "storage directory " + dir
            + " is already another peer's; every peer needs its own");
      }
      peers.add(new Peer(fields[0], fields[1], dir));
    }
    if (peers.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "--peers-file: " + peersFile + " lists no peer");
    }
    return peers;
  }

  /** Reads back every byte of each chosen generation before anything is written. */
  private boolean verify(ObjectStore store, RestorePlan plan, PrintWriter out) {
    List<String> defects = new ArrayList<>();
    try (GenerationVerifier verifier = new GenerationVerifier(store)) {
      for (GroupPlan group : plan.groups()) {
        IntegrityException defect = verifier.verifyData(group.manifest(), TransferListener.NONE);
        out.println("verify: group " + group.group() + " index " + group.id().index() + " term "
            + group.id().term() + " (" + ByteSizes.format(group.bytes()) + "): "
            + (defect == null ? "OK" : "CORRUPT: " + defect.getMessage()));
        if (defect != null) {
          defects.add(group.group());
        }
      }
    }
    if (!defects.isEmpty()) {
      spec.commandLine().getErr().println("restore_cluster: the chosen generation of group(s) "
          + String.join(", ", defects) + " is damaged; nothing was written. Find the damage with offload verify"
          + " --all, or restore an older generation with --at");
    }
    out.flush();
    return defects.isEmpty();
  }

  private void printStartup(RestorePlan plan, List<Peer> targets, Map<Peer, RestorePlan> hosted,
      PrintWriter out) {
    out.println();
    out.println("Start-up: every peer with RaftStorage.StartupOption.RECOVER (the default, FORMAT, refuses"
        + " existing group directories), on the storage directory and address below. Ratis finds each group"
        + " in the directory, with the peers written in its configuration; no RaftGroup needs to be given.");
    for (Peer peer : targets) {
      out.println();
      out.println("peer " + peer.id() + ":");
      out.println("  raft.server.storage.dir = " + peer.dataDir());
      out.println("  address                 = " + peer.address()
          + "  (raft.grpc.server.host and raft.grpc.server.port)");
      out.println("  start option            = RECOVER");
      for (GroupPlan group : hosted.get(peer).groups()) {
        out.println("  group " + group.group() + "  snapshot index " + group.id().index() + ", term "
            + group.id().term() + ", peers " + String.join(",", group.peerLabels()));
      }
    }
    out.println();
    out.println("In Java, for peer " + targets.get(0).id() + ":");
    out.println("  RaftServerConfigKeys.setStorageDir(properties, List.of(new File(\""
        + targets.get(0).dataDir() + "\")));");
    out.println("  RaftServer.newBuilder().setServerId(RaftPeerId.valueOf(\"" + targets.get(0).id()
        + "\")).setProperties(properties)");
    out.println("      .setStateMachineRegistry(...).setOption(RaftStorage.StartupOption.RECOVER).build();");
    out.println("Restored " + plan.groups().size() + " group(s) of cluster " + source.cluster + " for "
        + targets.size() + " peer(s).");
    out.flush();
  }
}
