package dev.ratisoffload.cli;

import dev.ratisoffload.primitives.Printable;
import dev.ratisoffload.store.ConformanceReport;
import dev.ratisoffload.store.ConformanceResult;
import dev.ratisoffload.store.ObjectStore;
import dev.ratisoffload.store.StoreConformance;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code offload store check}: {@link StoreConformance} against the store the flags name. */
@Command(name = "check",
    mixinStandardHelpOptions = true,
    description = {
        "Checks that the store has the properties backups rest on: put-if-absent refused on an existing key, "
            + "one winner among " + StoreConformance.CONCURRENT_WRITERS + " concurrent writers, a conditional "
            + "multipart completion, a body with a wrong checksum refused, ranged reads, a listing that shows a "
            + "key just written, delete, the configured server-side encryption.",
        "It writes under " + StoreConformance.SCRATCH_ROOT + "<random>/ in the store and removes that "
            + "afterwards. Exits 0 when every property publishing relies on holds (FAIL lines: 3; WARN lines "
            + "do not change the exit code); 4 when the store cannot be reached."},
    footerHeading = "%nExamples:%n",
    footer = {
        "  offload store check --store s3://backups/ratis --region eu-west-1",
        "  offload store check --store file:///mnt/backups/ratis --json"})
final class StoreCheckCommand extends StoreCommand {

  /** One property as {@code --json} prints it. */
  record PropertyJson(String property, String verdict, boolean publishingReliesOn, String detail,
      String failureMeans) {}

  /** The report as {@code --json} prints it; {@code leftBehind} is null when the scratch prefix is gone. */
  record ReportJson(String store, boolean conformant, List<PropertyJson> properties, String leftBehind) {}

  @Override
  public Integer call() {
    ConformanceReport report;
    try (ObjectStore store = openStore()) {
      report = StoreConformance.check(store);
    }
    if (output.json) {
      Json.print(out(), json(report));
    } else {
      print(report);
    }
    return report.conformant() ? ExitCodes.OK : ExitCodes.DATA;
  }

  private void print(ConformanceReport report) {
    for (ConformanceResult r : report.results()) {
      boolean holds = r.verdict() == ConformanceResult.Verdict.PASS
          || r.verdict() == ConformanceResult.Verdict.NOT_APPLICABLE;
      out().println(String.format("%-4s  %-24s %s%s", r.verdict().word(), r.property().id(),
          Printable.of(r.detail()), holds ? "" : ". For backups: " + r.property().failureMeans()));
    }
    report.leftBehind().ifPresent(left -> err().println("offload store check: " + Printable.of(left)));
    out().println(report.conformant()
        ? Printable.of(report.store()) + " has every property publishing relies on"
        : Printable.of(report.store()) + " lacks " + report.firstFailure().orElseThrow().property().id()
            + ", which publishing relies on: do not keep backups there as it is (docs/design.md, \"Store"
            + " compatibility\", says what to do instead)");
  }

  private static ReportJson json(ConformanceReport report) {
    List<PropertyJson> properties = report.results().stream()
        .map(r -> new PropertyJson(r.property().id(), r.verdict().word(), r.property().publishingReliesOn(),
            r.detail(), r.property().failureMeans()))
        .toList();
    return new ReportJson(report.store(), report.conformant(), properties, report.leftBehind().orElse(null));
  }
}
