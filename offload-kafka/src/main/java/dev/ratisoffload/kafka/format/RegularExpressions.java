package dev.ratisoffload.kafka.format;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** The one way a selection flag's regular expression is read: a bad one is a usage error naming it. */
final class RegularExpressions {

  private RegularExpressions() {}

  /**
   * @param what what the pattern selects, for the message ("topic", "consumer group")
   * @throws IllegalArgumentException naming the pattern and what is wrong with it
   */
  static Pattern compile(String what, String pattern) {
    try {
      return Pattern.compile(pattern);
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException(what + " pattern '" + pattern + "' is not a regular expression: "
          + e.getDescription());
    }
  }
}
