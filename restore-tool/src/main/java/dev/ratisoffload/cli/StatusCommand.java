package dev.ratisoffload.cli;

import dev.ratisoffload.format.GenerationReader.StoredGeneration;
import dev.ratisoffload.restore.Freshness;
import dev.ratisoffload.restore.GenerationCatalog;
import dev.ratisoffload.restore.Selection;
import dev.ratisoffload.store.ObjectStore;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code offload status}: how fresh each group's newest generation is; a health check with --max-age. */
@Command(name = "status",
    mixinStandardHelpOptions = true,
    description = {
        "Shows, per group, the newest generation's index, term and age.",
        "With --max-age it exits 6 when any group's newest generation is older (or a named group has "
            + "none), for cron jobs and health checks; 3 when a newest manifest is corrupt."},
    footerHeading = "%nExamples:%n",
    footer = {
        "  offload status --store s3://backups/ratis --cluster orders-prod",
        "  offload status --store s3://backups/ratis --cluster orders-prod \\",
        "      --max-age 24h --json"})
final class StatusCommand extends StoreCommand implements ErrorReporter.Advising {

  @Mixin
  private SelectionOptions selectionOptions;

  @Option(names = "--max-age", paramLabel = "DURATION", converter = Converters.RatisDuration.class,
      description = "Exit 6 when a group's newest generation is older than this (e.g. 30min, 24h).")
  private Duration maxAge;

  /** A group's freshness; index, term and times are null when it has no readable generation. */
  record GroupStatus(String cluster, String group, Long index, Long term, Instant createdAt,
      Long ageSeconds, Freshness status, String problem) {}

  @Override
  public Integer call() {
    Selection selection = selectionOptions.selection();
    Instant now = offload().clock().instant();
    try (ObjectStore store = openStore()) {
      GenerationCatalog catalog = new GenerationCatalog(store);
      Map<GenerationCatalog.GroupKey, List<StoredGeneration>> found = catalog.find(selection);
      List<GroupStatus> statuses = new ArrayList<>();
      for (List<StoredGeneration> generations : found.values()) {
        statuses.add(status(catalog.readNewest(generations), now));
      }
      for (String group : catalog.missingGroups(selection, found)) {
        statuses.add(new GroupStatus(selection.cluster(), group, null, null, null, null, Freshness.NEVER,
            "no generation is stored"));
      }
      print(statuses, selection, store.describe());
      return exitCode(statuses, selection, store.describe());
    }
  }

  private GroupStatus status(GenerationCatalog.Entry newest, Instant now) {
    var id = newest.stored().id();
    Freshness freshness = Freshness.of(newest, now, maxAge);
    if (freshness == Freshness.CORRUPT) {
      return new GroupStatus(id.cluster(), id.group(), id.index(), id.term(), null, null, freshness,
          newest.problem().getMessage());
    }
    Duration age = Freshness.age(newest, now);
    return new GroupStatus(id.cluster(), id.group(), id.index(), id.term(), newest.manifest().createdAt(),
        Math.max(0, age.toSeconds()), freshness, freshness == Freshness.STALE
            ? "newest generation is " + Formats.duration(age) + " old, more than --max-age "
                + Formats.duration(maxAge) : null);
  }

  private int exitCode(List<GroupStatus> statuses, Selection selection, String store) {
    PrintWriter err = spec.commandLine().getErr();
    List<GroupStatus> corrupt = statuses.stream().filter(s -> s.status() == Freshness.CORRUPT).toList();
    if (!corrupt.isEmpty()) {
      err.println("offload status: the newest manifest of group " + corrupt.get(0).group() + " is corrupt: "
          + ErrorReporter.oneLine(corrupt.get(0).problem()) + ". Run offload verify --all for details");
      return ExitCodes.DATA;
    }
    List<GroupStatus> never = statuses.stream().filter(s -> s.status() == Freshness.NEVER).toList();
    if (statuses.isEmpty() || !never.isEmpty()) {
      String what = statuses.isEmpty() ? selection.describe() : "group " + never.get(0).group();
      err.println("offload status: no generation of " + what + " is stored in " + store
          + "; check --store and --cluster, and that the plugin publishes (its ratis_offload_* metrics)");
      return maxAge != null ? ExitCodes.STALE : ExitCodes.DATA;
    }
    List<GroupStatus> stale = statuses.stream().filter(s -> s.status() == Freshness.STALE).toList();
    if (!stale.isEmpty()) {
      err.println("offload status: " + stale.size() + " of " + statuses.size() + " group(s) are stale; group "
          + stale.get(0).group() + ": " + ErrorReporter.oneLine(stale.get(0).problem())
          + ". Check that the plugin publishes"
          + " (its leader's logs and ratis_offload_failed_total)");
      return ExitCodes.STALE;
    }
    return ExitCodes.OK;
  }

  private void print(List<GroupStatus> statuses, Selection selection, String store) {
    PrintWriter out = spec.commandLine().getOut();
    if (output.json) {
      Json.print(out, statuses);
      return;
    }
    if (statuses.isEmpty()) {
      out.println("No generations of " + selection.describe() + " in " + store + ".");
      out.flush();
      return;
    }
    Table table = new Table("CLUSTER", "GROUP", "INDEX", "TERM", "CREATED", "AGE", "STATUS");
    for (GroupStatus s : statuses) {
      table.row(s.cluster(), s.group(), s.index(), s.term(),
          s.createdAt() == null ? null : Formats.time(s.createdAt()),
          s.ageSeconds() == null ? null : Formats.duration(Duration.ofSeconds(s.ageSeconds())), s.status());
    }
    table.print(out);
  }

  @Override
  public String advice(int exitCode) {
    return exitCode == ExitCodes.UNAVAILABLE ? "Check --store and the credentials, then run it again" : null;
  }
}
