package dev.ratisoffload.kafka.format;

import dev.ratisoffload.primitives.Printable;
import java.util.regex.Pattern;

/**
 * Kafka topic names, and their form inside object keys.
 *
 * <p>Kafka allows 1-249 of {@code [a-zA-Z0-9._-]}, except "." and "..". Object keys allow the same
 * characters (and '='), but no key segment may start with '.' (a store's temporary files do). A
 * leading '.' is therefore written {@code =2e}; '=' never occurs in a topic name, so the escaping is
 * unambiguous and every other name is its own key segment.
 */
public final class TopicNames {

  private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
  private static final String ESCAPED_DOT = "=2e";

  private TopicNames() {}

  public static boolean isValid(String topic) {
    return topic != null && TOPIC.matcher(topic).matches() && !topic.equals(".") && !topic.equals("..");
  }

  /** Throws unless the name is one Kafka accepts. */
  public static String requireValid(String topic) {
    if (!isValid(topic)) {
      throw new IllegalArgumentException("invalid topic name '" + Printable.excerpt(topic)
          + "': Kafka topic names are 1-249 of letters, digits, '.', '_' and '-', and not '.' or '..'");
    }
    return topic;
  }

  /** The topic's key segment. */
  static String toKeySegment(String topic) {
    requireValid(topic);
    return topic.startsWith(".") ? ESCAPED_DOT + topic.substring(1) : topic;
  }

  /** The topic a key segment names; throws if the segment is not one {@link #toKeySegment} writes. */
  static String fromKeySegment(String segment) {
    String topic = segment.startsWith(ESCAPED_DOT) ? "." + segment.substring(ESCAPED_DOT.length()) : segment;
    if (!isValid(topic) || !toKeySegment(topic).equals(segment)) {
      throw new IllegalArgumentException("'" + Printable.excerpt(segment) + "' is not a topic's key segment");
    }
    return topic;
  }
}
