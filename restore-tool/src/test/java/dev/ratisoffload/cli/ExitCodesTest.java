package dev.ratisoffload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ratisoffload.kafka.KafkaOffloadException;
import dev.ratisoffload.kafka.KafkaOffloadException.Kind;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The command line alone turns the library's kinds of failure into exit codes. */
class ExitCodesTest {

  @Test
  void everyKindOfKafkaFailureHasItsDocumentedExitCode() {
    Map<Kind, Integer> expected = new EnumMap<>(Kind.class);
    expected.put(Kind.INVALID, ExitCodes.USAGE);
    expected.put(Kind.INCONSISTENT, ExitCodes.DATA);
    expected.put(Kind.UNAVAILABLE, ExitCodes.UNAVAILABLE);
    expected.put(Kind.REFUSED, ExitCodes.REFUSED);
    for (Kind kind : Kind.values()) {
      assertEquals(expected.get(kind), ExitCodes.of(new KafkaOffloadException(kind, "failed")), kind.name());
    }
  }
}
