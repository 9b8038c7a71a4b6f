///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 17+
//DEPS dev.ratisoffload:restore-tool:0.1.0-SNAPSHOT

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ratisoffload.cli.Converters;
import dev.ratisoffload.cli.ExitCodes;
import dev.ratisoffload.cli.HelpOption;
import dev.ratisoffload.cli.OffloadCommand;
import dev.ratisoffload.cli.SelectionOptions;
import dev.ratisoffload.cli.StoreOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** A freshness check for cron: 'offload status --max-age', quiet while every group is fresh. */
@Command(name = "freshness_check",
    description = {
        "Checks that every group of the store (or of --cluster, or the groups named) has a generation "
            + "younger than --max-age, with 'offload status --max-age'. Made for cron and health checks: "
            + "it prints nothing and exits 0 while every group is fresh (--verbose: one line per group), "
            + "and prints one line per stale group and exits 6 when any is stale or has no generation "
            + "at all. cron mails what it prints, so silence means fresh.",
        "Pick --max-age from the plugin's offload.schedule.interval: two or three intervals leave room for "
            + "one failed or skipped pass.",
        ""},
    footerHeading = "%nExamples:%n",
    footer = {
        "  jbang scripts/freshness_check.java --store s3://backups/ratis \\",
        "      --cluster orders-prod --max-age 3h",
        "  # crontab, every 15 minutes, from a clone:",
        "  */15 * * * * cd /opt/ratis-offload && scripts/jbang \\",
        "      scripts/freshness_check.java --store s3://backups/ratis \\",
        "      --cluster orders-prod --max-age 3h",
        "",
        "Output: one line per group that is not fresh (with --verbose, per",
        "group): STALE|NEVER|CORRUPT|OK CLUSTER GROUP: what is wrong.",
        "",
        "Exit codes:",
        "  0  every group fresh",
        "  2  invalid invocation",
        "  3  a newest manifest corrupt",
        "  4  store unreachable",
        "  6  a group stale, or without any generation"})
public class freshness_check implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Mixin
  HelpOption help;

  @Mixin
  StoreOptions storeOptions;

  @Mixin
  SelectionOptions selection;

  @Option(names = "--max-age", required = true, paramLabel = "DURATION",
      converter = Converters.RatisDuration.class,
      description = "The age a group's newest generation may reach (e.g. 30min, 3h, 24h).")
  Duration maxAge;

  @Option(names = "--verbose", description = "Also a line for each fresh group.")
  boolean verbose;

  public static void main(String... args) {
    System.exit(OffloadCommand.runCommand(new freshness_check(), args));
  }

  @Override
  public Integer call() throws Exception {
    StringWriter json = new StringWriter();
    StringWriter errors = new StringWriter();
    int code = OffloadCommand.run(new PrintWriter(json), new PrintWriter(errors), statusArgs());
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    // status prints its table as JSON whenever it could read the store (exit 0, 3 or 6).
    JsonNode statuses = json.toString().isBlank() ? null : new ObjectMapper().readTree(json.toString());
    if (statuses != null) {
      for (JsonNode s : statuses) {
        String status = s.path("status").asText();
        if (!status.equals("OK") || verbose) {
          out.println(status + " " + s.path("cluster").asText() + " " + s.path("group").asText() + ": "
              + (status.equals("OK") ? "newest generation index " + s.path("index").asText() + ", "
                  + s.path("ageSeconds").asLong() + "s old" : s.path("problem").asText()));
        }
      }
    }
    // The lines above say what is stale; status's own sentence is kept for anything else, such as an
    // unreachable store or a store holding nothing for the selection.
    if (code != ExitCodes.OK && !(code == ExitCodes.STALE && statuses != null && !statuses.isEmpty())) {
      err.print(errors.toString().replace("offload status:", "freshness_check:"));
    }
    out.flush();
    err.flush();
    return code;
  }

  /** 'offload status' with every option given to this check except --verbose, and --json. */
  private String[] statusArgs() {
    List<String> args = new ArrayList<>(List.of("status", "--json"));
    for (OptionSpec option : spec.commandLine().getParseResult().matchedOptions()) {
      if (option.longestName().equals("--verbose")) {
        continue;
      }
      List<String> values = option.originalStringValues();
      if (values.isEmpty() || option.arity().max() == 0) {
        args.add(option.longestName());
        continue;
      }
      for (String value : values) {
        args.add(option.longestName());
        args.add(value);
      }
    }
    return args.toArray(String[]::new);
  }
}
