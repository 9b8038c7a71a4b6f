package dev.ratisoffload.cli;

import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.primitives.ByteSizes;
import dev.ratisoffload.primitives.Printable;
import dev.ratisoffload.retention.GarbageCollector.GcReport;
import dev.ratisoffload.retention.GarbageCollector;
import dev.ratisoffload.retention.RetentionPlan;
import dev.ratisoffload.retention.RetentionPolicy;
import dev.ratisoffload.store.ObjectStore;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code offload gc}: applies a retention policy to a cluster's groups. Prints the plan (what is kept
 * and why, what is deleted) and changes nothing unless given {@code --apply}.
 */
@Command(name = "gc",
    mixinStandardHelpOptions = true,
    description = {
        "Applies a retention policy to the generations of a cluster, group by group: first the manifests "
            + "no rule keeps, then the chunks no remaining generation references, unless a publish of the "
            + "group is in progress (its chunks are then kept until the next run).",
        "A generation is kept if any rule keeps it; the newest generation of a group is always kept, and so "
            + "is the newest whose latest verification passed (a scrub's, or offload verify --record's). A group "
            + "with no such generation has nothing deleted. Without --apply it only prints the plan and changes "
            + "nothing.",
        "A manifest that cannot be read stops that group's collection (exit 3) before anything more is "
            + "deleted; the other groups are still collected."},
    footerHeading = "%nExamples:%n",
    footer = {
        "  offload gc --store s3://backups/ratis --cluster orders-prod --keep-last 8 --keep-daily 14",
        "  offload gc --store s3://backups/ratis --cluster orders-prod --keep-within 7d --apply --json"})
final class GcCommand extends StoreCommand implements ErrorReporter.Advising {

  @Mixin
  private SelectionOptions selectionOptions;

  @Option(names = "--keep-last", paramLabel = "N", description = "Keep the newest N generations of each group.")
  private int keepLast;

  @Option(names = "--keep-within", paramLabel = "DURATION", converter = Converters.RatisDuration.class,
      description = "Keep every generation created within this duration before the group's newest (e.g. 7d).")
  private Duration keepWithin = Duration.ZERO;

  @Option(names = "--keep-hourly", paramLabel = "N",
      description = "Keep the newest generation of each of the N most recent hours that have one.")
  private int keepHourly;

  @Option(names = "--keep-daily", paramLabel = "N", description = "Likewise per day (UTC).")
  private int keepDaily;

  @Option(names = "--keep-weekly", paramLabel = "N", description = "Likewise per ISO week (UTC).")
  private int keepWeekly;

  @Option(names = "--keep-monthly", paramLabel = "N", description = "Likewise per month (UTC).")
  private int keepMonthly;

  @Option(names = "--chunk-grace", paramLabel = "DURATION", converter = Converters.RatisDuration.class,
      description = "How long a publish or a collection may take before the other treats its activity "
          + "object as abandoned: the servers' offload.retention.chunk-grace; at least 1min "
          + "(default: ${DEFAULT-VALUE}).")
  private Duration chunkGrace = RetentionPolicy.DEFAULT_CHUNK_GRACE;

  @Option(names = "--apply", description = "Delete what the plan says. Without it nothing is changed.")
  private boolean apply;

  /** One group's outcome, for JSON. */
  record GroupResult(String cluster, String group, boolean applied, List<Kept> kept, List<Expired> expired,
      int chunksDeleted, long chunkBytesDeleted, String chunksKept, int chunksLeftForNextRun, int refusedDeletes,
      String failure) {}

  record Kept(long index, long term, Set<String> reasons) {}

  record Expired(long index, long term) {}

  /** The whole run, for JSON. */
  record Result(List<GroupResult> groups, List<String> warnings) {}

  @Override
  public Integer call() {
    var selection = selectionOptions.selection();
    if (selection.cluster() == null) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "--cluster is required: garbage collection works on one cluster at a time");
    }
    RetentionPolicy policy = policy();
    try (ObjectStore store = openStore()) {
      GarbageCollector collector = new GarbageCollector(store);
      List<String> groups = selection.groups().isEmpty()
          ? collector.groups(selection.cluster()) : new ArrayList<>(selection.groups());
      List<GcReport> reports = new ArrayList<>();
      for (String group : groups) {
        reports.add(collector.collect(selection.cluster(), group, policy, apply));
      }
      List<String> warnings = new ArrayList<>();
      store.deletionWarning().ifPresent(warnings::add);
      print(reports, warnings, store.describe());
      return exitCode(reports);
    }
  }

  private RetentionPolicy policy() {
    RetentionPolicy policy;
    try {
      var given = spec.commandLine().getParseResult().matchedOption("--chunk-grace");
      RetentionPolicy.requireSafeChunkGrace("--chunk-grace",
          given == null ? chunkGrace.toString() : given.stringValues().get(0), chunkGrace);
      policy = new RetentionPolicy(keepLast, keepWithin, keepHourly, keepDaily, keepWeekly, keepMonthly, chunkGrace);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    if (!policy.isEnabled()) {
      throw new CommandLine.ParameterException(spec.commandLine(),
          "give at least one rule (--keep-last, --keep-within, --keep-hourly, --keep-daily, --keep-weekly "
              + "or --keep-monthly): without a rule everything is kept and there is nothing to collect");
    }
    return policy;
  }

  private int exitCode(List<GcReport> reports) {
    for (GcReport report : reports) {
      if (report.failure() != null) {
        PrintWriter err = spec.commandLine().getErr();
        err.println("offload gc: collection of group " + report.group() + " stopped: "
            + ErrorReporter.oneLine(report.failure().getMessage()) + ". Before stopping it deleted "
            + report.expiredManifests().size() + " manifest(s) and " + report.deletedChunks()
            + " chunk(s); everything else of the group was left. Run offload verify --all for the group");
        err.flush();
        return ExitCodes.of(report.failure());
      }
    }
    return ExitCodes.OK;
  }

  private void print(List<GcReport> reports, List<String> warnings, String store) {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    warnings.forEach(w -> err.println("offload gc: warning: " + ErrorReporter.oneLine(w)));
    err.flush();
    if (output.json) {
      Json.print(out, new Result(reports.stream().map(GcCommand::result).toList(), warnings));
      return;
    }
    if (reports.isEmpty()) {
      out.println("No generations of cluster " + selectionOptions.selection().cluster() + " in " + store + ".");
      out.flush();
      return;
    }
    Table table = new Table("GROUP", "INDEX", "TERM", "ACTION", "WHY");
    String deleteWord = apply ? "deleted" : "delete";
    for (GcReport report : reports) {
      for (Map.Entry<GenerationId, Set<String>> kept : report.kept().entrySet()) {
        table.row(report.group(), kept.getKey().index(), kept.getKey().term(), "keep", String.join(", ", kept.getValue()));
      }
      for (GenerationId expired : report.expiredManifests()) {
        table.row(report.group(), expired.index(), expired.term(), deleteWord, "no rule keeps it");
      }
    }
    table.print(out);
    for (GcReport report : reports) {
      out.printf("group %s: %s %d unreferenced chunk(s), %s%s%s%s%s%n",
          report.group(), apply ? "deleted" : "would delete", report.deletedChunks(),
          ByteSizes.format(report.deletedChunkBytes()),
          report.chunksKept().map(why -> "; chunks kept: " + Printable.of(why)).orElse(""),
          report.chunksLeft() > 0 ? "; " + report.chunksLeft() + " left for the next run (the sweep's time"
              + " ran out)" : "",
          report.refusedDeletes() > 0 ? "; " + report.refusedDeletes() + " delete(s) refused by object lock" : "",
          report.failure() != null ? "; STOPPED: " + ErrorReporter.oneLine(report.failure().getMessage()) : "");
    }
    for (GcReport report : reports) {
      if (report.kept().values().stream().anyMatch(why -> why.contains(RetentionPlan.NONE_VERIFIED))) {
        out.printf("group %s: no generation has a passing verification, so none was deleted: run offload verify"
            + " --group %s --all --record (or let the plugin's scrub run), then collect again%n",
            report.group(), report.group());
      }
    }
    if (!apply) {
      out.println("Nothing was changed: run again with --apply to delete.");
    }
    out.flush();
  }

  private static GroupResult result(GcReport r) {
    List<Kept> kept = r.kept().entrySet().stream()
        .map(e -> new Kept(e.getKey().index(), e.getKey().term(), e.getValue())).toList();
    List<Expired> expired = r.expiredManifests().stream().map(id -> new Expired(id.index(), id.term())).toList();
    return new GroupResult(r.cluster(), r.group(), r.applied(), kept, expired, r.deletedChunks(),
        r.deletedChunkBytes(), r.chunksKept().orElse(null), r.chunksLeft(), r.refusedDeletes(),
        r.failure() == null ? null : r.failure().getMessage());
  }

  @Override
  public String advice(int exitCode) {
    return exitCode == ExitCodes.UNAVAILABLE ? "Check --store and the credentials, then run it again" : null;
  }
}
