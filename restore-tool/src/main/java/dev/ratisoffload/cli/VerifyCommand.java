package dev.ratisoffload.cli;

import dev.ratisoffload.format.GenerationReader.StoredGeneration;
import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.VerificationRecord;
import dev.ratisoffload.format.VerificationRecords;
import dev.ratisoffload.primitives.ByteSizes;
import dev.ratisoffload.primitives.ToolVersion;
import dev.ratisoffload.restore.GenerationCatalog;
import dev.ratisoffload.restore.GenerationVerifier;
import dev.ratisoffload.restore.MissingBackupException;
import dev.ratisoffload.restore.Selection;
import dev.ratisoffload.restore.TransferListener;
import dev.ratisoffload.scrub.Scrubber;
import dev.ratisoffload.store.IntegrityException;
import dev.ratisoffload.store.ObjectStore;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code offload verify}: proves generations restorable by reading back every byte. */
@Command(name = "verify",
    mixinStandardHelpOptions = true,
    description = {
        "Checks the newest generation of each selected group (every generation with --all): the manifest's "
            + "own hash, that its key, cluster and group agree with where it was found, every chunk's "
            + "presence and size, and every file's SHA-256 (which proves every chunk's bytes; a damaged file is "
            + "read again chunk by chunk to name the damaged chunk).",
        "Exits 3 when anything is missing or corrupt, naming the object and the defect; 4 when the store "
            + "cannot be read. A generation found damaged whose manifest is gone by then, while its group still "
            + "has generations, was removed while it was checked (retention on a live store): it is shown as "
            + "DELETED, which fails only a group of which no checked generation verified.",
        "Read-only, unless --record is given: then each generation checked gets a verification record in the "
            + "store (its time and result, shown by offload list and the plugin's metrics), as the plugin's "
            + "scrub writes them."},
    footerHeading = "%nExamples:%n",
    footer = {
        "  offload verify --store s3://backups/ratis --cluster orders-prod",
        "  offload verify --store file:///mnt/backups --cluster orders-prod \\",
        "      --group 02511d47-d67c-49a3-9011-abb3109a44c1 --all --json",
        "  offload verify --store s3://backups/ratis --cluster orders-prod --all --record"})
final class VerifyCommand extends StoreCommand implements ErrorReporter.Advising {

  @Mixin
  private SelectionOptions selectionOptions;

  @Mixin
  private ProgressOptions progress;

  @Option(names = "--all", description = "Verify every generation, not only each group's newest.")
  private boolean all;

  @Option(names = "--record", description = "Write a verification record (ok or damaged) beside each "
      + "generation checked; needs write access to the store. Without it, verify changes nothing.")
  private boolean record;

  /** The verdict on one generation (or on a named group that has none). */
  record Verdict(String cluster, String group, Long index, Long term, Long bytes, String status,
      String problem) {

    GenerationCatalog.GroupKey groupKey() {
      return new GenerationCatalog.GroupKey(cluster, group);
    }
  }

  /** The status of a generation removed while it was checked (by retention, as a plugin publishes). */
  private static final String DELETED = "DELETED";

  @Override
  public Integer call() {
    Selection selection = selectionOptions.selection();
    try (ObjectStore store = openStore()) {
      GenerationCatalog catalog = new GenerationCatalog(store);
      var found = catalog.find(selection);
      List<String> missing = catalog.missingGroups(selection, found);
      if (found.isEmpty() && missing.isEmpty()) {
        throw new MissingBackupException("no generation of " + selection.describe() + " is stored in "
            + store.describe());
      }
      List<StoredGeneration> toCheck = new ArrayList<>();
      found.values().forEach(gs -> toCheck.addAll(all ? gs : List.of(gs.get(gs.size() - 1))));
      List<GenerationCatalog.Entry> entries = catalog.read(toCheck);
      List<Verdict> verdicts = verify(store, catalog, entries);
      for (String group : missing) {
        verdicts.add(new Verdict(selection.cluster(), group, null, null, null, "MISSING",
            "no generation of group " + group + " of " + (selection.cluster() == null ? "any cluster"
                : "cluster " + selection.cluster()) + " is stored in " + store.describe()));
      }
      print(verdicts);
      // A generation the store no longer holds is no defect of what it holds, as long as its group had one
      // that verified: else nothing of the group was proven.
      Set<GenerationCatalog.GroupKey> proven = verdicts.stream().filter(v -> "OK".equals(v.status()))
          .map(Verdict::groupKey).collect(Collectors.toSet());
      List<Verdict> bad = verdicts.stream()
          .filter(v -> !"OK".equals(v.status()) && !(DELETED.equals(v.status()) && proven.contains(v.groupKey())))
          .toList();
      if (bad.isEmpty()) {
        return ExitCodes.OK;
      }
      Verdict first = bad.get(0);
      spec.commandLine().getErr().println("offload verify: " + bad.size() + " of " + verdicts.size()
          + " checked generation(s) are missing or corrupt; first: " + ErrorReporter.oneLine(first.problem())
          + (record ? ". Verification records were written. " : ". Nothing was changed in the store. ") + (DELETED.equals(first.status())
              ? "No checked generation of group " + first.group() + " verified: run offload verify again to check"
                  + " the generations stored now"
              : "Restore another generation with offload restore --index or --at, and find why the data was"
                  + " damaged"));
      return ExitCodes.DATA;
    }
  }

  private List<Verdict> verify(ObjectStore store, GenerationCatalog catalog, List<GenerationCatalog.Entry> entries) {
    long total = entries.stream().filter(e -> e.manifest() != null)
        .mapToLong(e -> e.manifest().totalBytes()).sum();
    TransferListener meter = ProgressMeter.create(progress.mode, spec.commandLine().getErr(), "verified");
    List<Verdict> verdicts = new ArrayList<>();
    meter.started(total);
    try (GenerationVerifier verifier = new GenerationVerifier(store)) {
      for (GenerationCatalog.Entry e : entries) {
        var id = e.stored().id();
        IntegrityException problem = e.problem() != null ? e.problem() : verifier.verifyData(e.manifest(), meter);
        String status = problem == null ? "OK" : catalog.removedSinceListed(id) ? DELETED : "CORRUPT";
        String message = switch (status) {
          case "OK" -> null;
          case DELETED -> "removed from the store while it was checked (retention or offload gc), after: "
              + problem.getMessage();
          default -> problem.getMessage();
        };
        verdicts.add(new Verdict(id.cluster(), id.group(), id.index(), id.term(),
            e.manifest() == null ? null : e.manifest().totalBytes(), status, message));
        if (record && !DELETED.equals(status)) {
          record(store, id, problem);
        }
      }
    } finally {
      meter.finished();
    }
    return verdicts;
  }

  /**
   * Writes the generation's verification record: ok, or, for a damaged one, the record of a scrub that
   * reads it again chunk by chunk (moving nothing), so the record names every damaged chunk and how.
   */
  private static void record(ObjectStore store, GenerationId id, IntegrityException problem) {
    String by = "offload verify " + ToolVersion.get();
    if (problem == null) {
      VerificationRecords.write(store, VerificationRecord.of(id, Instant.now(), by, List.of(), null));
      return;
    }
    try {
      new Scrubber(store, Clock.systemUTC(), bytes -> { }).scrub(id, by, false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void print(List<Verdict> verdicts) {
    PrintWriter out = spec.commandLine().getOut();
    if (output.json) {
      Json.print(out, verdicts);
      return;
    }
    Table table = new Table("CLUSTER", "GROUP", "INDEX", "TERM", "SIZE", "STATUS", "PROBLEM");
    for (Verdict v : verdicts) {
      table.row(v.cluster(), v.group(), v.index(), v.term(), v.bytes() == null ? null : ByteSizes.format(v.bytes()),
          v.status(), v.problem());
    }
    table.print(out);
  }

  @Override
  public String advice(int exitCode) {
    if (exitCode == ExitCodes.UNAVAILABLE) {
      return "Nothing was verified to the end; check --store and the credentials, then run it again";
    }
    return null;
  }
}
