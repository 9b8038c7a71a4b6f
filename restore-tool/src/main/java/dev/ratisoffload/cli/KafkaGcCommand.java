package dev.ratisoffload.cli;

import dev.ratisoffload.kafka.format.TopicSelection;
import dev.ratisoffload.kafka.gc.ChainCollector;
import dev.ratisoffload.kafka.gc.ChainResult;
import dev.ratisoffload.kafka.gc.ChainRetention;
import dev.ratisoffload.kafka.gc.SnapshotCollector;
import dev.ratisoffload.kafka.gc.SnapshotResult;
import dev.ratisoffload.kafka.read.KafkaBackupCatalog;
import dev.ratisoffload.kafka.read.SegmentSource;
import dev.ratisoffload.primitives.ByteSizes;
import dev.ratisoffload.store.ObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code offload kafka gc}: removes the oldest segments of each partition's chain by a retention policy. */
@Command(name = "gc",
    mixinStandardHelpOptions = true,
    description = {
        "Removes whole segments from the start of each partition's chain: those holding only records older "
            + "than --keep-within before the chain's newest record, and those beyond the newest segments that "
            + "fit --keep-bytes (a segment goes when either rule lets it go). The newest segment of a chain is "
            + "always kept. Without --apply it only prints what it would remove.",
        "Before removing anything it stores a chain-start marker naming the first kept segment, so the chain "
            + "stays verifiable however the run ends; kafka list then shows the offsets the chain still covers "
            + "and a restore starts at its first kept segment.",
        "A chain with a gap or an overlap, an unexpected object, or a header or marker that cannot be read "
            + "has nothing removed, and the run exits 3 naming why; the other chains are still collected.",
        "Consumer-group offset snapshots go with the chains: every snapshot taken after the start of the "
            + "earliest kept window, and the newest one at or before it, stay (so a restore with --until inside "
            + "the window finds one). A snapshot that cannot be read, or a chain left as it is, keeps every "
            + "snapshot of its topic (exit 3). Offset maps are kept."},
    footerHeading = "%nExamples:%n",
    footer = {
        "  offload kafka gc --store s3://backups/kafka --cluster orders-prod --keep-within 7d",
        "  offload kafka gc --store s3://backups/kafka --cluster orders-prod --topic orders \\",
        "      --keep-within 30d --keep-bytes 500GiB --apply"})
final class KafkaGcCommand extends KafkaReportCommand<KafkaGcCommand.Report> implements ErrorReporter.Advising {

  /** What was (or would be) removed: segments per chain, then group offset snapshots per topic incarnation. */
  record Report(List<ChainResult> chains, List<SnapshotResult> groupOffsetSnapshots) {}

  @Mixin
  private ChainRetentionOptions retentionOptions;

  @Option(names = "--apply", description = "Remove what the plan says. Without it nothing is changed.")
  private boolean apply;

  @Override
  Report read(ObjectStore store, String cluster, Optional<TopicSelection> topics) {
    ChainRetention retention = retentionOptions.retention(spec)
        .orElseThrow(() -> new ParameterException(spec.commandLine(), "say what to keep: --keep-within DURATION,"
            + " --keep-bytes SIZE, or both"));
    SegmentSource source = new SegmentSource(store);
    ChainCollector chainCollector = new ChainCollector(source, retention);
    SnapshotCollector snapshotCollector = new SnapshotCollector(source);
    // Topic by topic, each from a listing of its own tree: a stray object there still keeps its chains.
    List<Optional<TopicSelection>> each = topics.isEmpty() ? List.of(Optional.empty())
        : storedTopics(store, cluster, topics.get()).stream().map(t -> Optional.of(TopicSelection.of(t))).toList();
    List<ChainResult> chains = new ArrayList<>();
    List<SnapshotResult> snapshots = new ArrayList<>();
    for (Optional<TopicSelection> topic : each) {
      KafkaBackupCatalog catalog = KafkaBackupCatalog.scan(store, cluster, topic);
      List<ChainResult> collected = chainCollector.collect(catalog, apply);
      chains.addAll(collected);
      snapshots.addAll(snapshotCollector.collect(catalog, collected, apply));
    }
    return new Report(chains, snapshots);
  }

  /** The named topics, and the stored topics the pattern matches. */
  private static Set<String> storedTopics(ObjectStore store, String cluster, TopicSelection topics) {
    Set<String> chosen = new TreeSet<>(topics.names());
    if (topics.hasPattern()) {
      KafkaBackupCatalog.scan(store, cluster, Optional.of(topics)).incarnations()
          .forEach(incarnation -> chosen.add(incarnation.topic()));
    }
    return chosen;
  }

  @Override
  boolean isEmpty(Report report) {
    return report.chains().isEmpty() && report.groupOffsetSnapshots().isEmpty();
  }

  @Override
  String text(Report report) {
    StringBuilder b = new StringBuilder();
    for (ChainResult r : report.chains()) {
      b.append(r.describe()).append(": ");
      if (r.refused() != null) {
        b.append("REFUSED, nothing removed: ").append(r.refused());
      } else if (r.removedSegments() == 0) {
        b.append("nothing to remove; keeps offsets ").append(r.keptFirst()).append('-').append(r.keptLast());
      } else {
        b.append(r.applied() ? "removed " : "would remove ").append(r.removedSegments()).append(" segments, offsets ")
            .append(r.removedFirst()).append('-').append(r.removedLast()).append(", ")
            .append(ByteSizes.format(r.removedBytes())).append("; keeps offsets ").append(r.keptFirst()).append('-')
            .append(r.keptLast());
      }
      b.append('\n');
    }
    for (SnapshotResult r : report.groupOffsetSnapshots()) {
      b.append(r.describe()).append(": ");
      if (r.refused() != null) {
        b.append("REFUSED, nothing removed: ").append(r.refused());
      } else if (r.removed().isEmpty()) {
        b.append("nothing to remove; keeps ").append(r.kept()).append(" snapshots");
      } else {
        b.append(r.applied() ? "removed " : "would remove ").append(r.removed().size()).append(" snapshots taken ")
            .append(r.removed().get(0)).append(" to ").append(r.removed().get(r.removed().size() - 1))
            .append("; keeps ").append(r.kept());
      }
      b.append('\n');
    }
    if (!apply && (report.chains().stream().anyMatch(r -> r.removedSegments() > 0)
        || report.groupOffsetSnapshots().stream().anyMatch(r -> !r.removed().isEmpty()))) {
      b.append("dry run: nothing was removed; run again with --apply to remove it\n");
    }
    return b.toString();
  }

  @Override
  int conclude(Report report) {
    List<ChainResult> refused = report.chains().stream().filter(r -> r.refused() != null).toList();
    if (refused.isEmpty()) {
      Optional<SnapshotResult> kept = report.groupOffsetSnapshots().stream().filter(r -> r.refused() != null)
          .findFirst();
      if (kept.isEmpty()) {
        return ExitCodes.OK;
      }
      err().println("offload kafka gc: the group offset snapshots of " + kept.get().topic() + " (topic id "
          + kept.get().topicId() + ") were left as they are: " + ErrorReporter.oneLine(kept.get().refused())
          + ". Run offload kafka verify on the topic; the chains were collected");
      return ExitCodes.DATA;
    }
    err().println("offload kafka gc: " + refused.size() + " chain(s) left as they are; first: "
        + refused.get(0).describe() + ": " + ErrorReporter.oneLine(refused.get(0).refused())
        + ". Run offload kafka verify on it; the other chains were collected");
    return ExitCodes.DATA;
  }

  @Override
  public String advice(int exitCode) {
    if (exitCode == ExitCodes.UNAVAILABLE) {
      return "Every chain is verifiable as it was left; run the same command again when the store answers";
    }
    return null;
  }
}
