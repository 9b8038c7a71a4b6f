package dev.ratisoffload.cli;

import dev.ratisoffload.format.GenerationReader.StoredGeneration;
import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.VerificationRecord;
import dev.ratisoffload.format.VerificationRecords;
import dev.ratisoffload.primitives.ByteSizes;
import dev.ratisoffload.primitives.ToolVersion;
import dev.ratisoffload.restore.GenerationCatalog;
import dev.ratisoffload.restore.GenerationCheck;
import dev.ratisoffload.restore.GenerationCheck.Verdict;
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
      List<GenerationCheck> checks = verify(store, catalog, catalog.read(toCheck));
      missing.forEach(group -> checks.add(GenerationCheck.missing(selection.cluster(), group, store.describe())));
      print(checks);
      List<GenerationCheck> failures = GenerationCheck.failures(checks);
      if (failures.isEmpty()) {
        return ExitCodes.OK;
      }
      GenerationCheck first = failures.get(0);
      err().println("offload verify: " + failures.size() + " of " + checks.size()
          + " checked generation(s) are missing or corrupt; first: " + ErrorReporter.oneLine(first.problem())
          + (record ? ". Verification records were written. " : ". Nothing was changed in the store. ")
          + (first.status() == Verdict.DELETED
              ? "No checked generation of group " + first.group() + " verified: run offload verify again to check"
                  + " the generations stored now"
              : "Restore another generation with offload restore --index or --at, and find why the data was"
                  + " damaged"));
      return ExitCodes.DATA;
    }
  }

  private List<GenerationCheck> verify(ObjectStore store, GenerationCatalog catalog,
      List<GenerationCatalog.Entry> entries) {
    long total = entries.stream().filter(e -> e.manifest() != null)
        .mapToLong(e -> e.manifest().totalBytes()).sum();
    TransferListener meter = ProgressMeter.create(progress.mode, err(), "verified");
    List<GenerationCheck> checks = new ArrayList<>();
    meter.started(total);
    try (GenerationVerifier verifier = new GenerationVerifier(store)) {
      for (GenerationCatalog.Entry e : entries) {
        GenerationId id = e.stored().id();
        IntegrityException problem = e.problem() != null ? e.problem() : verifier.verifyData(e.manifest(), meter);
        GenerationCheck check = GenerationCheck.of(e, problem, () -> catalog.removedSinceListed(id));
        checks.add(check);
        if (record && check.status().recordable()) {
          record(store, id, problem);
        }
      }
    } finally {
      meter.finished();
    }
    return checks;
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

  private void print(List<GenerationCheck> checks) {
    PrintWriter out = out();
    if (output.json) {
      Json.print(out, checks);
      return;
    }
    Table table = new Table("CLUSTER", "GROUP", "INDEX", "TERM", "SIZE", "STATUS", "PROBLEM");
    for (GenerationCheck v : checks) {
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
