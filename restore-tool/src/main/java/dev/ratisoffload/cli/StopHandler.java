package dev.ratisoffload.cli;

import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.backup.StopSignals;
import java.io.PrintWriter;
import java.util.Optional;

/**
 * Installs the SIGTERM and SIGINT handler of a Kafka command, and does not ignore a failure to. A
 * follower does not start without it: it is stopped by a signal, storing what it holds and exiting 0,
 * and without the handler that signal would kill it (exit 143) with records in flight. A one-shot
 * backup ends by itself, so it warns and runs on: a kill leaves every chain intact.
 */
final class StopHandler {

  private StopHandler() {}

  static void install(Runnable stop, boolean follower, String command, PrintWriter err) {
    Optional<String> problem = StopSignals.onTermOrInt(stop);
    if (problem.isEmpty()) {
      return;
    }
    if (follower) {
      throw new KafkaOffloadException(KafkaOffloadException.Kind.INVALID, problem.get() + " (does the JVM run"
          + " with -Xrs?): a follower stops on SIGTERM by storing what it holds and exiting 0, and without the"
          + " handler the signal would kill it instead. Nothing was done: run it without -Xrs");
    }
    err.println(command + ": warning: " + problem.get() + "; a signal kills this run (exit 143) instead of"
        + " stopping it: every chain stays intact and the next run continues it");
    err.flush();
  }
}
