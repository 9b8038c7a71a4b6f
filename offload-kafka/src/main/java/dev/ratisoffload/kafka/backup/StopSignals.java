package dev.ratisoffload.kafka.backup;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import sun.misc.Signal;

/**
 * Turns SIGTERM and SIGINT into a clean stop: the handler only asks the backup or restore to stop, and
 * the command returns normally (exit 0) once it has. A shutdown hook could not do that: the JVM exits
 * with 143 after SIGTERM whatever a hook does, short of halting.
 */
public final class StopSignals {

  private StopSignals() {}

  /**
   * Runs {@code stop} (on a signal thread) when the process receives SIGTERM or SIGINT.
   *
   * @return why a handler could not be installed (the JVM reserved the signal, as with {@code -Xrs}),
   *     or empty when both were: the caller decides whether it can run with the default action, a kill
   */
  public static Optional<String> onTermOrInt(Runnable stop) {
    return handle(List.of("TERM", "INT"), stop);
  }

  static Optional<String> handle(List<String> names, Runnable stop) {
    List<String> problems = new ArrayList<>();
    for (String name : names) {
      try {
        Signal.handle(new Signal(name), signal -> stop.run());
      } catch (IllegalArgumentException e) {
        problems.add("SIG" + name + ": " + e.getMessage());
      }
    }
    return problems.isEmpty() ? Optional.empty() : Optional.of("cannot handle " + String.join("; ", problems));
  }
}
