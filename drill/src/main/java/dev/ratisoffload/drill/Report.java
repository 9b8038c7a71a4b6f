package dev.ratisoffload.drill;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * What a drill run did, step by step: how long each step took, what it restored and verified, and
 * every problem found. A run passed when no step failed and no check found a difference.
 */
final class Report {

  /** A step's outcome. */
  enum Outcome { OK, FAILED, SKIPPED }

  /** One timed step. */
  record Step(String name, Outcome outcome, Duration took, String detail) {}

  /** Work a step does; it returns a one-line summary of what it did. */
  @FunctionalInterface
  interface Work {
    String run() throws Exception;
  }

  private final List<Step> steps = new ArrayList<>();
  private final List<String> restored = new ArrayList<>();
  private final List<String> verified = new ArrayList<>();
  private final List<String> problems = Collections.synchronizedList(new ArrayList<>()); // groups check in parallel
  private final PrintStream progress;

  Report(PrintStream progress) {
    this.progress = progress;
  }

  /**
   * Runs a step unless a step it needs failed; records its time and outcome. A step fails when it
   * throws; the message becomes a problem of the run. Returns whether it succeeded.
   */
  boolean step(String name, boolean runnable, Work work) {
    if (!runnable) {
      steps.add(new Step(name, Outcome.SKIPPED, Duration.ZERO, "an earlier step it needs failed"));
      progress.printf("== %s: skipped (an earlier step it needs failed)%n", name);
      return false;
    }
    progress.printf("== %s%n", name);
    long start = System.nanoTime();
    try {
      String detail = work.run();
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      steps.add(new Step(name, Outcome.OK, took, detail));
      progress.printf("   %s (%s)%n", detail, seconds(took));
      return true;
    } catch (Exception | AssertionError e) {
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      String message = e.getMessage() != null ? e.getMessage() : e.toString();
      steps.add(new Step(name, Outcome.FAILED, took, message));
      problems.add(name + ": " + message);
      progress.printf("   FAILED: %s%n", message);
      return false;
    }
  }

  void restored(String line) {
    restored.add(line);
  }

  void verified(String line) {
    verified.add(line);
  }

  /** A difference a check found: the run fails, but the other checks go on. */
  void problem(String line) {
    problems.add(line);
  }

  boolean passed() {
    return problems.isEmpty() && steps.stream().noneMatch(s -> s.outcome() != Outcome.OK);
  }

  List<Step> steps() {
    return List.copyOf(steps);
  }

  /** The total of the named steps that ran: the recovery time an operator should expect. */
  Duration total(List<String> names) {
    return steps.stream().filter(s -> names.contains(s.name())).map(Step::took).reduce(Duration.ZERO, Duration::plus);
  }

  void print(PrintStream out, List<String> header, List<String> recoverySteps) {
    out.println();
    out.println("Disaster-recovery drill report");
    header.forEach(line -> out.println("  " + line));
    out.println();
    out.println("Restored:");
    (restored.isEmpty() ? List.of("nothing") : restored).forEach(line -> out.println("  " + line));
    out.println("Verified:");
    (verified.isEmpty() ? List.of("nothing") : verified).forEach(line -> out.println("  " + line));
    out.println("Time per step:");
    for (Step s : steps) {
      String time = String.format(Locale.ROOT, "  %-26s %9s", s.name(),
          s.outcome() == Outcome.SKIPPED ? "-" : seconds(s.took()));
      out.println(s.outcome() == Outcome.OK ? time : time + "  " + s.outcome().name().toLowerCase(Locale.ROOT));
    }
    boolean recovered = steps.stream().filter(s -> recoverySteps.contains(s.name()))
        .allMatch(s -> s.outcome() == Outcome.OK);
    out.printf(Locale.ROOT, "  %-26s %9s  (%s)%n", "recovery time", recovered ? seconds(total(recoverySteps)) : "-",
        String.join(" + ", recoverySteps) + (recovered ? "" : ": not every one of them succeeded"));
    out.println();
    if (passed()) {
      out.println("RESULT: PASSED: every key of the published generations and every backed-up record was restored"
          + " and matched");
    } else {
      out.println("RESULT: FAILED (" + problems.size() + " problem(s)):");
      problems.stream().limit(20).forEach(p -> out.println("  - " + p));
      if (problems.size() > 20) {
        out.println("  ... and " + (problems.size() - 20) + " more");
      }
    }
  }

  static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
