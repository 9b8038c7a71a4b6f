package dev.ratisoffload.kafka.read;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.ratisoffload.primitives.ByteSizes;
import dev.ratisoffload.primitives.Printable;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** Renders the list and verify reports for people (aligned text) and for programs (JSON). */
public final class KafkaReports {

  private static final int HOLES_SHOWN = 10;
  private static final ObjectMapper JSON = JsonMapper.builder()
      .addModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .enable(SerializationFeature.INDENT_OUTPUT)
      .build();

  private KafkaReports() {}

  public static String json(Object report) {
    try {
      return JSON.writeValueAsString(report);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render report as JSON", e);
    }
  }

  public static String text(ListReport report) {
    StringBuilder b = new StringBuilder();
    if (report.topics().isEmpty()) {
      b.append("no Kafka backups of cluster ").append(report.cluster()).append('\n');
    }
    for (ListReport.TopicListing t : report.topics()) {
      b.append(String.format(Locale.ROOT, "topic %s (id %s): %s partitions, %,d records, %s, newest record %s%n",
          t.topic(), t.topicId(), t.partitionCount() == null ? "?" : t.partitionCount(), t.records(),
          ByteSizes.format(t.storedBytes()), t.newestRecord() == null ? "-" : t.newestRecord()));
      b.append(t.groupOffsetsTakenAt() == null ? "  consumer groups: no offsets recorded\n"
          : String.format(Locale.ROOT, "  consumer groups (offsets recorded %s): %s%n", t.groupOffsetsTakenAt(),
              t.consumerGroups().isEmpty() ? "none had committed offsets"
                  : t.consumerGroups().stream().map(Printable::of).collect(Collectors.joining(", "))));
      b.append(String.format(Locale.ROOT, "  %9s  %-31s  %12s  %10s  %9s  %10s  %s%n", "partition", "offsets",
          "records", "holes", "segments", "stored", "newest record"));
      for (ListReport.PartitionListing p : t.partitions()) {
        b.append(String.format(Locale.ROOT, "  %9d  %-31s  %,12d  %,10d  %,9d  %10s  %s%s%s%n", p.partition(),
            p.firstOffset() + "-" + p.lastOffset(), p.records(), p.holeOffsets(), p.segments(),
            ByteSizes.format(p.storedBytes()), p.newestRecord() == null ? "-" : p.newestRecord(),
            p.breaks() > 0 ? "  (" + p.breaks() + " breaks: run kafka verify)" : "",
            p.trimmedBelow() == null ? "" : "  (offsets before " + p.trimmedBelow() + " removed by kafka gc)"));
        p.problems().forEach(problem -> b.append("    problem: ").append(problem).append('\n'));
      }
    }
    report.problems().forEach(problem -> b.append("problem: ").append(problem).append('\n'));
    return b.toString();
  }

  public static String text(VerifyReport report) {
    StringBuilder b = new StringBuilder();
    for (VerifyReport.TopicResult t : report.topics()) {
      b.append(String.format(Locale.ROOT, "topic %s (id %s): %d manifest versions%n", t.topic(), t.topicId(),
          t.manifestVersions()));
      t.problems().forEach(problem -> b.append("  PROBLEM: ").append(problem).append('\n'));
      for (VerifyReport.PartitionResult p : t.partitions()) {
        b.append(String.format(Locale.ROOT, "  partition %d: %s, offsets %s-%s, %d/%d segments verified,"
                + " %,d records, %,d hole offsets%s%n", p.partition(), p.problems().isEmpty() ? "ok" : "DAMAGED",
            p.firstOffset(), p.lastOffset(), p.segmentsVerified(), p.segments(), p.records(), p.holeOffsets(),
            holes(p)));
        p.problems().forEach(problem -> b.append("    PROBLEM: ").append(problem).append('\n'));
      }
    }
    report.problems().forEach(problem -> b.append("PROBLEM: ").append(problem).append('\n'));
    b.append(report.ok()
        ? "verified: every segment intact and every chain continuous; holes are offsets the broker had no"
            + " record for (compaction, transaction markers, aborted records), not lost data\n"
        : report.problemCount() + " problem(s) found\n");
    return b.toString();
  }

  private static String holes(VerifyReport.PartitionResult p) {
    if (p.holes().isEmpty()) {
      return "";
    }
    List<OffsetRange> shown = p.holes().subList(0, Math.min(HOLES_SHOWN, p.holes().size()));
    boolean more = p.holes().size() > HOLES_SHOWN || !p.holesListed();
    return " at " + shown.stream().map(OffsetRange::toString).collect(Collectors.joining(", ")) + (more ? ", ..." : "");
  }
}
