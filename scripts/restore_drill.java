///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 17+
//DEPS dev.ratisoffload:ratis-offload-parent:0.1.0-SNAPSHOT@pom
//DEPS dev.ratisoffload:restore-tool:0.1.0-SNAPSHOT
//DEPS org.apache.ratis:ratis-server
//DEPS org.apache.ratis:ratis-grpc
//DEPS org.apache.ratis:ratis-metrics-default
//SOURCES lib/RestoreSource.java

import dev.ratisoffload.cli.Converters;
import dev.ratisoffload.cli.ExitCodes;
import dev.ratisoffload.cli.HelpOption;
import dev.ratisoffload.cli.OffloadCommand;
import dev.ratisoffload.cli.StoreOptions;
import dev.ratisoffload.format.Manifest;
import dev.ratisoffload.restore.ClusterRestorer;
import dev.ratisoffload.restore.GroupPlan;
import dev.ratisoffload.restore.RestorePlan;
import dev.ratisoffload.restore.RestoreRequest;
import dev.ratisoffload.restore.TransferListener;
import dev.ratisoffload.store.ObjectStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.StateMachine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** A restore drill: restores generations into a scratch directory and loads each group into a throwaway server. */
@Command(name = "restore_drill",
    description = {
        "A restore drill, to run monthly and after every change to the state machine's snapshot format: "
            + "restores each group's newest generation (or the newest at or before --at) into a scratch "
            + "directory exactly as 'offload restore' does, starts one throwaway Ratis server on it "
            + "(127.0.0.1, a free port, StartupOption.RECOVER) with your state machine, and reports for "
            + "each group whether the state machine loaded the snapshot and at which index.",
        "The state machine class (--state-machine) needs a public no-argument constructor; one instance "
            + "is made per group. Put its classes on the classpath with JBang's --cp or --deps:",
        "  jbang --deps com.example:my-store:1.4 scripts/restore_drill.java ... \\",
        "      --state-machine com.example.MyStateMachine",
        "The server takes the id of one of the groups' peers; every peer's address is rewritten to "
            + "127.0.0.1 (the others' to ports nothing listens on), so the drill never contacts the real "
            + "cluster and elects no leader: it loads the snapshots and stops.",
        ""},
    footerHeading = "%nExamples:%n",
    footer = {
        "  jbang --deps dev.ratisoffload:reference-kv:0.1.0-SNAPSHOT \\",
        "      scripts/restore_drill.java --store s3://backups/ratis \\",
        "      --cluster orders-prod \\",
        "      --state-machine dev.ratisoffload.refkv.KvStateMachine",
        "",
        "Exit codes:",
        "  0  every group loaded at its generation's index",
        "  2  invalid invocation, e.g. a state machine class that cannot be",
        "     found or made",
        "  3  a generation missing or corrupt, or a group that did not load",
        "  4  store unreachable",
        "  5  the scratch directory refused"})
public class restore_drill implements Callable<Integer> {

  private static final String LOOPBACK = "127.0.0.1";

  @Spec
  CommandSpec spec;

  @Mixin
  HelpOption help;

  @Mixin
  StoreOptions storeOptions;

  @Mixin
  RestoreSource source;

  @Option(names = "--state-machine", required = true, paramLabel = "CLASS",
      description = "Your StateMachine class (fully qualified), on the classpath.")
  String stateMachine;

  @Option(names = "--scratch-dir", paramLabel = "DIR",
      description = "Restore here and keep it afterwards (it must not hold the groups already). "
          + "Default: a temporary directory, deleted at the end.")
  Path scratchDir;

  @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "60s",
      converter = Converters.RatisDuration.class,
      description = "How long the groups may take to load (default ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(names = "--verbose", description = "Ratis's logs, and the stack trace of a failure.")
  boolean verbose;

  /** What the drill found for one group. */
  record Outcome(String group, long expectedIndex, long expectedTerm, String snapshotIndex, long appliedIndex,
      String problem) {}

  public static void main(String... args) {
    System.exit(OffloadCommand.runCommand(new restore_drill(), args));
  }

  @Override
  public Integer call() throws Exception {
    // Before any logger exists: Ratis is chatty, and a follower without peers warns about them.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", verbose ? "info" : "warn");
    System.setProperty("org.slf4j.simpleLogger.log.org.apache.ratis", verbose ? "info" : "error");
    PrintWriter out = spec.commandLine().getOut();
    Function<RaftGroupId, StateMachine> stateMachines = stateMachineFactory();
    boolean temporary = scratchDir == null;
    Path scratch = temporary ? Files.createTempDirectory("restore-drill-") : scratchDir.toAbsolutePath();
    Path dataDir = scratch.resolve("data");
    try {
      RestoreRequest request = source.request(null, Map.of(), dataDir);
      List<GroupPlan> plans;
      try (ObjectStore store = storeOptions.open()) {
        ClusterRestorer restorer = new ClusterRestorer(store);
        RestorePlan found = restorer.choose(request);
        String serverId = mostCommonPeer(found.groups());
        int port = freePort();
        plans = onLoopback(found.groups(), serverId, port);
        restorer.restore(new RestorePlan(request, plans), TransferListener.NONE);
        out.println("restored " + plans.size() + " group(s) into " + dataDir + "; starting peer " + serverId
            + " on " + LOOPBACK + ":" + port + " with " + stateMachine);
        out.flush();
        List<Outcome> outcomes = load(serverId, port, dataDir, plans, stateMachines);
        return report(outcomes, out);
      }
    } finally {
      if (temporary) {
        deleteTree(scratch);
      }
    }
  }

  /** The state machine class, checked before anything is restored. */
  private Function<RaftGroupId, StateMachine> stateMachineFactory() {
    Class<?> type;
    try {
      type = Class.forName(stateMachine, false, Thread.currentThread().getContextClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new ParameterException(spec.commandLine(), "--state-machine: class " + stateMachine + " is not on"
          + " the classpath (" + e + "); add its jar with jbang --cp JAR or --deps GROUP:ARTIFACT:VERSION");
    }
    if (!StateMachine.class.isAssignableFrom(type)) {
      throw new ParameterException(spec.commandLine(), "--state-machine: " + stateMachine
          + " does not implement org.apache.ratis.statemachine.StateMachine");
    }
    Constructor<?> constructor;
    try {
      constructor = type.getConstructor();
    } catch (NoSuchMethodException e) {
      throw new ParameterException(spec.commandLine(), "--state-machine: " + stateMachine
          + " has no public no-argument constructor");
    }
    return group -> {
      try {
        return (StateMachine) constructor.newInstance();
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot make a " + stateMachine + ": " + e.getCause(), e);
      }
    };
  }

  /** The peer id most groups have: the throwaway server's. */
  private static String mostCommonPeer(List<GroupPlan> plans) {
    Map<String, Long> counts = plans.stream().flatMap(g -> g.peers().stream())
        .collect(Collectors.groupingBy(Manifest.Peer::id, LinkedHashMap::new, Collectors.counting()));
    return counts.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
  }

  /**
   * Every peer on 127.0.0.1: the server's on its port, the others' on ports nothing listens on; their
   * client, admin and data-stream addresses dropped, so the drill never reaches a real host.
   */
  private static List<GroupPlan> onLoopback(List<GroupPlan> plans, String serverId, int port) throws IOException {
    Map<String, String> addresses = new LinkedHashMap<>();
    addresses.put(serverId, LOOPBACK + ":" + port);
    for (GroupPlan plan : plans) {
      for (Manifest.Peer peer : plan.peers()) {
        if (!addresses.containsKey(peer.id())) {
          addresses.put(peer.id(), LOOPBACK + ":" + freePort());
        }
      }
    }
    return plans.stream().map(p -> new GroupPlan(p.id(), p.manifest(),
        p.peers().stream().map(peer -> new Manifest.Peer(peer.id(), addresses.get(peer.id()), null, null, null,
            peer.priority(), peer.role())).toList(),
        p.term())).toList();
  }

  private List<Outcome> load(String serverId, int port, Path dataDir, List<GroupPlan> plans,
      Function<RaftGroupId, StateMachine> stateMachines) throws IOException {
    RaftProperties properties = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(properties, List.of(dataDir.toFile()));
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, false);
    GrpcConfigKeys.Server.setHost(properties, LOOPBACK);
    GrpcConfigKeys.Server.setPort(properties, port);
    GrpcConfigKeys.Client.setHost(properties, LOOPBACK);
    GrpcConfigKeys.Admin.setHost(properties, LOOPBACK);
    RaftServer server;
    try {
      server = RaftServer.newBuilder()
          .setServerId(RaftPeerId.valueOf(serverId))
          .setProperties(properties)
          .setStateMachineRegistry(stateMachines::apply)
          .setOption(RaftStorage.StartupOption.RECOVER)
          .build();
      server.start();
    } catch (IOException | RuntimeException e) {
      String problem = "the server did not start: " + oneLine(e);
      return plans.stream().map(p -> new Outcome(p.group(), p.id().index(), p.id().term(), "-", -1, problem))
          .toList();
    }
    try {
      long deadline = System.nanoTime() + timeout.toNanos();
      List<Outcome> outcomes = new ArrayList<>();
      for (GroupPlan plan : plans) {
        outcomes.add(inspect(server, plan, deadline));
      }
      return outcomes;
    } finally {
      server.close();
    }
  }

  /** Waits (until the deadline) for the group's state machine to reach its snapshot's index. */
  private static Outcome inspect(RaftServer server, GroupPlan plan, long deadline) {
    RaftGroupId groupId = RaftGroupId.valueOf(UUID.fromString(plan.group()));
    long expected = plan.id().index();
    String snapshot = "-";
    long applied = -1;
    String problem;
    while (true) {
      try {
        RaftServer.Division division = server.getDivision(groupId);
        StateMachine machine = division.getStateMachine();
        SnapshotInfo latest = machine.getLatestSnapshot();
        snapshot = latest == null ? "-" : Long.toString(latest.getIndex());
        applied = machine.getLastAppliedTermIndex() == null ? -1 : machine.getLastAppliedTermIndex().getIndex();
        if (applied == expected) {
          return new Outcome(plan.group(), expected, plan.id().term(), snapshot, applied, null);
        }
        problem = "the state machine's last applied index is " + applied + ", not the snapshot's " + expected
            + ": it did not load the snapshot";
      } catch (IOException | RuntimeException e) {
        problem = "the group did not start: " + oneLine(e);
      }
      if (System.nanoTime() > deadline) {
        return new Outcome(plan.group(), expected, plan.id().term(), snapshot, applied, problem);
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new Outcome(plan.group(), expected, plan.id().term(), snapshot, applied, "interrupted");
      }
    }
  }

  private int report(List<Outcome> outcomes, PrintWriter out) {
    for (Outcome o : outcomes) {
      out.println((o.problem() == null ? "LOADED" : "FAILED") + "  group " + o.group() + "  generation index "
          + o.expectedIndex() + " term " + o.expectedTerm() + "  state machine: snapshot index "
          + o.snapshotIndex() + ", applied index " + o.appliedIndex()
          + (o.problem() == null ? "" : "  (" + o.problem() + ")"));
    }
    out.flush();
    long failed = outcomes.stream().filter(o -> o.problem() != null).count();
    if (failed > 0) {
      spec.commandLine().getErr().println("restore_drill: " + failed + " of " + outcomes.size()
          + " group(s) did not load; the restored files cannot bring the cluster back with " + stateMachine
          + ". Run again with --verbose and --scratch-dir to see Ratis's logs and keep the files");
      spec.commandLine().getErr().flush();
      return ExitCodes.DATA;
    }
    out.println("drill passed: " + outcomes.size() + " group(s) loaded at their generations' indexes");
    out.flush();
    return ExitCodes.OK;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
      return socket.getLocalPort();
    }
  }

  private static String oneLine(Throwable e) {
    return String.valueOf(e).replaceAll("\\s*[\\r\\n]+\\s*", " ");
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException | UncheckedIOException e) {
      System.err.println("restore_drill: could not delete the scratch directory " + root + ": " + e);
    }
  }
}
