package dev.ratisoffload.cli;

import dev.ratisoffload.kafka.format.TopicSelection;
import dev.ratisoffload.primitives.Printable;
import dev.ratisoffload.restore.MissingBackupException;
import dev.ratisoffload.store.ObjectStore;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code offload kafka list} and {@code verify}: read the stored backups of a cluster (or one topic), print
 * a report and turn its problems into the exit code.
 *
 * @param <R> the report
 */
abstract class KafkaReportCommand<R> extends StoreCommand {

  @Option(names = "--cluster", required = true, paramLabel = "ID", converter = Converters.Cluster.class,
      description = "The name the backups are stored under.")
  private String cluster;

  @Option(names = "--topic", paramLabel = "TOPIC", description = "Only this topic (repeatable).")
  private List<String> topics = new ArrayList<>();

  @Option(names = "--topic-pattern", paramLabel = "REGEX",
      description = "Only the topics whose whole name this regular expression matches (and any --topic).")
  private String topicPattern;

  /** Reads what is stored of {@code cluster}, only the chosen topics if any are. */
  abstract R read(ObjectStore store, String cluster, Optional<TopicSelection> topics);

  /** Whether the report found neither a topic nor a problem: nothing is stored. */
  abstract boolean isEmpty(R report);

  /** The report for people. */
  abstract String text(R report);

  /** The exit code for the report, after saying on standard error what is wrong. */
  abstract int conclude(R report);

  @Override
  public final Integer call() {
    Optional<TopicSelection> chosen = chosenTopics();
    try (ObjectStore store = openStore()) {
      R report = read(store, cluster, chosen);
      if (isEmpty(report)) {
        throw new MissingBackupException("no Kafka backup of " + chosen.map(t -> "topic " + t).orElse("any topic")
            + " of cluster " + cluster + " is stored in " + store.describe());
      }
      PrintWriter out = out();
      if (output.json) {
        Json.print(out, report);
      } else {
        out.print(Printable.keepingLines(text(report)));
        out.flush();
      }
      return conclude(report);
    }
  }

  private Optional<TopicSelection> chosenTopics() {
    if (topics.isEmpty() && topicPattern == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(TopicSelection.of(topics, topicPattern));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}
