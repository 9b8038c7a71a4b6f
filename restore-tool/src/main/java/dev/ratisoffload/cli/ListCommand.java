package dev.ratisoffload.cli;

import dev.ratisoffload.format.GenerationReader.StoredGeneration;
import dev.ratisoffload.format.Layout.GenerationId;
import dev.ratisoffload.format.Layout.VerificationMark;
import dev.ratisoffload.format.VerificationRecord;
import dev.ratisoffload.primitives.ByteSizes;
import dev.ratisoffload.restore.GenerationCatalog;
import dev.ratisoffload.restore.Selection;
import dev.ratisoffload.store.ObjectStore;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code offload list}: the stored generations, by cluster and group, newest first. */
@Command(name = "list",
    mixinStandardHelpOptions = true,
    description = "Lists stored generations by cluster and group, newest first: group UUID, snapshot index "
        + "and term, creation time, size, publishing peer, and when each was last verified (by the plugin's "
        + "scrub or offload verify --record) with the result: ok, or damaged.",
    footerHeading = "%nExamples:%n",
    footer = {
        "  offload list --store s3://backups/ratis --region eu-west-1 \\",
        "      --cluster orders-prod",
        "  offload list --store file:///mnt/backups --since 2026-05-01 \\",
        "      --until 2026-05-02T06:00:00Z --json"})
final class ListCommand extends StoreCommand implements ErrorReporter.Advising {

  @Mixin
  private SelectionOptions selectionOptions;

  @Option(names = "--since", paramLabel = "TIME", converter = Converters.Time.class,
      description = "Only generations created at or after TIME (ISO-8601 instant, or a date: its start, UTC).")
  private Instant since;

  @Option(names = "--until", paramLabel = "TIME", converter = Converters.Time.class,
      description = "Only generations created at or before TIME.")
  private Instant until;

  /**
   * One line of the listing; {@code problem} is set when the manifest is unreadable; {@code verifiedAt}
   * and {@code verification} ({@code ok} or {@code damaged}) are null when it was never verified.
   */
  record Listed(String cluster, String group, long index, long term, Instant createdAt, Long bytes,
      Integer files, String publisher, Long leaderTerm, String manifestKey, String problem,
      Instant verifiedAt, String verification) {}

  @Override
  public Integer call() {
    Selection selection = selectionOptions.selection();
    try (ObjectStore store = openStore()) {
      GenerationCatalog catalog = new GenerationCatalog(store);
      var found = catalog.find(selection);
      List<StoredGeneration> generations = found.values().stream().flatMap(List::stream).toList();
      Map<GenerationId, VerificationMark> verified = catalog.verifications(found.keySet());
      List<Listed> listed = catalog.readStored(generations).stream()
          .filter(e -> since == null || !e.createdAt().isBefore(since))
          .filter(e -> until == null || !e.createdAt().isAfter(until))
          .map(e -> listed(e, verified.get(e.stored().id())))
          .sorted(Comparator.comparing(Listed::cluster).thenComparing(Listed::group)
              .thenComparing(Comparator.comparingLong(Listed::index).reversed()))
          .toList();
      print(listed, store.describe(), selection);
      List<Listed> corrupt = listed.stream().filter(l -> l.problem() != null).toList();
      if (!corrupt.isEmpty()) {
        spec.commandLine().getErr().println("offload list: " + corrupt.size() + " manifest(s) are corrupt: "
            + ErrorReporter.oneLine(corrupt.get(0).problem())
            + (corrupt.size() > 1 ? " (the others are marked in the listing)" : "")
            + ". Run offload verify for details");
        return ExitCodes.DATA;
      }
      return ExitCodes.OK;
    }
  }

  private static Listed listed(GenerationCatalog.Entry e, VerificationMark mark) {
    GenerationId id = e.stored().id();
    Instant verifiedAt = mark == null ? null : mark.verifiedAt();
    String verification = mark == null ? null : mark.ok() ? VerificationRecord.OK : VerificationRecord.DAMAGED;
    return e.manifest() == null
        ? new Listed(id.cluster(), id.group(), id.index(), id.term(), e.createdAt(), null, null, null, null,
            id.manifestKey(), e.problem().getMessage(), verifiedAt, verification)
        : new Listed(id.cluster(), id.group(), id.index(), id.term(), e.manifest().createdAt(),
            e.manifest().totalBytes(), e.manifest().files().size(), e.manifest().publisher().peer(),
            e.manifest().publisher().leaderTerm(), id.manifestKey(), null, verifiedAt, verification);
  }

  private void print(List<Listed> listed, String store, Selection selection) {
    PrintWriter out = spec.commandLine().getOut();
    if (output.json) {
      Json.print(out, listed);
      return;
    }
    if (listed.isEmpty()) {
      out.println("No generations of " + selection.describe() + " in " + store + ".");
      out.flush();
      return;
    }
    Table table = new Table("CLUSTER", "GROUP", "INDEX", "TERM", "CREATED", "SIZE", "FILES", "PUBLISHER",
        "VERIFIED");
    for (Listed l : listed) {
      table.row(l.cluster(), l.group(), l.index(), l.term(), Formats.time(l.createdAt()),
          l.bytes() == null ? "CORRUPT" : ByteSizes.format(l.bytes()), l.files(),
          l.publisher() == null ? null : l.publisher() + " (term " + l.leaderTerm() + ")",
          l.verifiedAt() == null ? "never" : Formats.time(l.verifiedAt()) + " " + l.verification());
    }
    table.print(out);
  }

  @Override
  public String advice(int exitCode) {
    return exitCode == ExitCodes.UNAVAILABLE ? "Check --store and the credentials, then run it again" : null;
  }
}
