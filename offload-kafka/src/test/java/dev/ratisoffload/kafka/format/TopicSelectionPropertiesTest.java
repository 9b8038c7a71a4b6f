package dev.ratisoffload.kafka.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** A topic pattern matches whole names, never an internal topic, and hostile input is refused clearly. */
class TopicSelectionPropertiesTest {

  @Provide
  Arbitrary<String> topic() {
    return Arbitraries.strings().withChars("abcXYZ019._-").ofMinLength(1).ofMaxLength(40);
  }

  @Property
  void aQuotedNameMatchesThatTopicAlone(@ForAll("topic") String name, @ForAll("topic") String other) {
    TopicSelection selection = TopicSelection.of(List.of(), Pattern.quote(name));
    assertEquals(!name.startsWith("__"), selection.matches(name));
    assertEquals(other.equals(name) && !name.startsWith("__"), selection.matches(other));
  }

  @Property
  void aPatternMatchesTheWholeNameOnly(@ForAll("topic") String name) {
    TopicSelection prefix = TopicSelection.of(List.of(), Pattern.quote(name));
    assertFalse(prefix.matches(name + "x"), "a pattern is not a prefix");
    assertFalse(prefix.matches("x" + name), "nor a substring");
  }

  @Property
  void internalTopicsNeverMatchAPatternButMayBeNamed(@ForAll("topic") String rest) {
    String internal = "__" + rest;
    assertFalse(TopicSelection.of(List.of(), ".*").matches(internal));
    assertEquals(List.of(), TopicSelection.of(List.of(), "_.*").choose(List.of(internal)));
    assertTrue(TopicSelection.of(List.of(internal), null).matches(internal), "a topic named by the user is chosen");
  }

  @Property
  void anyStringIsAcceptedOrRefusedWithAMessage(@ForAll String pattern) {
    try {
      TopicSelection.of(List.of(), pattern);
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage().startsWith("topic pattern '"), e.getMessage());
    }
  }

  @Example
  void namedTopicsArePartOfEveryChoiceAndNothingAtAllIsRefused() {
    TopicSelection selection = TopicSelection.of(List.of("b", "a"), "o.*");
    assertEquals(List.of("a", "b", "orders", "other"), selection.choose(List.of("orders", "other", "x", "__o")));
    assertThrows(IllegalArgumentException.class, () -> TopicSelection.of(List.of(), null));
    assertThrows(IllegalArgumentException.class, () -> TopicSelection.of(List.of("no/slash"), null));
    assertTrue(TopicSelection.of("a").isSingle());
    assertFalse(selection.isSingle());
  }
}
