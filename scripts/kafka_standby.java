///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 17+
//DEPS dev.ratisoffload:restore-tool:0.1.0-SNAPSHOT

import dev.ratisoffload.cli.Converters;
import dev.ratisoffload.cli.OffloadCommand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/** A Kafka standby kept in step with a backup, and its promotion: 'offload kafka restore --follow'. */
@Command(name = "kafka_standby",
    mixinStandardHelpOptions = true,
    description = {
        "Keeps a standby topic in another Kafka cluster in step with a backup that is still being written"
            + " (follow), and promotes it (promote). Every option after the subcommand is one of"
            + " 'offload kafka restore' (--store, --cluster, --topic, --bootstrap-server, --target-topic,"
            + " --create-topic, --offsets, ...); see 'scripts/offload kafka restore --help'."},
    subcommands = {kafka_standby.Follow.class, kafka_standby.Promote.class},
    footerHeading = "%nPromotion, step by step:%n",
    footer = {
        "  1. Stop the producers of the lost cluster, if any remain, and let its backup store its last",
        "     segments (SIGTERM to 'offload kafka backup --follow').",
        "  2. Stop the follower (SIGTERM: it exits 0).",
        "  3. Run 'promote' with the follower's options: it drains (sends every record the backup holds,",
        "     until the backup has not grown for --quiet), reads back each partition's last record and",
        "     compares it with the backup's, and exits 0. Exit 5: the standby holds something else.",
        "  4. Point the clients at the standby cluster.",
        "",
        "Examples:",
        "  scripts/jbang scripts/kafka_standby.java follow --store s3://backups/kafka \\",
        "      --cluster orders-prod --topic orders --bootstrap-server standby1:9092 --create-topic",
        "  scripts/jbang scripts/kafka_standby.java promote --quiet 30s --store s3://backups/kafka \\",
        "      --cluster orders-prod --topic orders --bootstrap-server standby1:9092"})
public class kafka_standby implements Runnable {

  public static void main(String... args) {
    System.exit(OffloadCommand.runCommand(new kafka_standby(), args));
  }

  @Override
  public void run() {
    throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
        "a subcommand is required: follow or promote");
  }

  /** The restore's own command line, with the mode's flags in front. */
  static int restore(List<String> mode, List<String> options) {
    List<String> args = new ArrayList<>(List.of("kafka", "restore"));
    args.addAll(mode);
    args.addAll(options);
    return OffloadCommand.run(args.toArray(String[]::new));
  }

  @Command(name = "follow", mixinStandardHelpOptions = true,
      description = "Follows the backup into the standby until SIGTERM or SIGINT (exit 0); started again, it"
          + " continues at the standby's high watermark after checking its last record.")
  static final class Follow implements Callable<Integer> {
    @Unmatched
    List<String> options = new ArrayList<>();

    @Override
    public Integer call() {
      return restore(List.of("--follow"), options);
    }
  }

  @Command(name = "promote", mixinStandardHelpOptions = true,
      description = "Drains the backup into the standby, checks each partition's last record against the"
          + " backup, and exits 0 when the standby holds every backed-up record. Stop the follower first.")
  static final class Promote implements Callable<Integer> {
    @Option(names = "--quiet", paramLabel = "DURATION", defaultValue = "30s",
        converter = Converters.RatisDuration.class,
        description = "How long the backup must not have grown before the standby counts as complete"
            + " (default ${DEFAULT-VALUE}); longer than the backup's --segment-age.")
    Duration quiet;

    @Unmatched
    List<String> options = new ArrayList<>();

    @Override
    public Integer call() {
      int code = restore(List.of("--follow", "--drain-after", quiet.toMillis() + "ms"), options);
      if (code == 0) {
        System.out.println("promoted: the standby holds every record of the backup; point the clients at it");
      }
      return code;
    }
  }
}
