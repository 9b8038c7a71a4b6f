package dev.ratisoffload.kafka.backup;

import sun.misc.Signal;

/**
 * Turns SIGTERM and SIGINT into a clean stop: the handler only asks the backup to stop, and the
 * command returns normally (exit 0) once the open segments are stored. A shutdown hook could not do
 * that: the JVM exits with 143 after SIGTERM whatever a hook does, short of halting.
 */
public final class StopSignals {

  private StopSignals() {}

  /** Runs {@code stop} (on a signal thread) when the process receives SIGTERM or SIGINT. */
  public static void onTermOrInt(Runnable stop) {
    for (String name : new String[] {"TERM", "INT"}) {
      try {
        Signal.handle(new Signal(name), signal -> stop.run());
      } catch (IllegalArgumentException e) {
        // the platform has no such signal, or the JVM reserved it (-Xrs): the default action stays
      }
    }
  }
}
