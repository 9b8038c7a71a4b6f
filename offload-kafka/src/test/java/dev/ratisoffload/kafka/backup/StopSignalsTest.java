package dev.ratisoffload.kafka.backup;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A handler that cannot be installed is reported, naming the signal, never silently skipped. */
class StopSignalsTest {

  @Test
  void aSignalThatCannotBeHandledIsReported() {
    Optional<String> problem = StopSignals.handle(List.of("NOSUCHSIGNAL"), () -> {});
    assertTrue(problem.isPresent() && problem.get().startsWith("cannot handle SIGNOSUCHSIGNAL: "),
        problem::toString);
  }
}
