package dev.ratisoffload.kafka.format;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Which topics a command works on: topics named one by one, and those whose whole name a regular
 * expression matches. Internal topics ({@code __consumer_offsets} and the like) are never matched by the
 * pattern, so a pattern such as {@code .*} cannot back up or restore the cluster's own state.
 */
public final class TopicSelection {

  private final List<String> names;
  private final Optional<Pattern> pattern;

  private TopicSelection(List<String> names, Optional<Pattern> pattern) {
    this.names = names;
    this.pattern = pattern;
  }

  /** Exactly one topic. */
  public static TopicSelection of(String topic) {
    return of(List.of(topic), null);
  }

  /**
   * The named topics and those {@code pattern} (null for none) matches entirely.
   *
   * @throws IllegalArgumentException for an invalid topic name or pattern, or when nothing is chosen
   */
  public static TopicSelection of(Collection<String> names, String pattern) {
    if (names.isEmpty() && pattern == null) {
      throw new IllegalArgumentException("no topic given: name one with --topic or choose with --topic-pattern");
    }
    names.forEach(TopicNames::requireValid);
    return new TopicSelection(List.copyOf(new TreeSet<>(names)),
        Optional.ofNullable(pattern).map(p -> RegularExpressions.compile("topic", p)));
  }

  /** The topics named one by one, sorted; they must exist, unlike those a pattern may match. */
  public List<String> names() {
    return names;
  }

  public boolean hasPattern() {
    return pattern.isPresent();
  }

  /** The one topic this selection names; throws when it names several or uses a pattern. */
  public String single() {
    if (names.size() != 1 || pattern.isPresent()) {
      throw new IllegalStateException("not a single topic: " + this);
    }
    return names.get(0);
  }

  public boolean isSingle() {
    return names.size() == 1 && pattern.isEmpty();
  }

  /** Whether {@code topic} is chosen: named, or matched entirely by the pattern and not internal. */
  public boolean matches(String topic) {
    return names.contains(topic) || pattern.filter(p -> !isInternal(topic) && p.matcher(topic).matches()).isPresent();
  }

  /** The chosen topics among {@code existing}, plus every named one, sorted. */
  public List<String> choose(Collection<String> existing) {
    TreeSet<String> chosen = new TreeSet<>(names);
    existing.stream().filter(this::matches).forEach(chosen::add);
    return List.copyOf(chosen);
  }

  /** Kafka's own topics begin with two underscores ({@code __consumer_offsets}, {@code __transaction_state}). */
  private static boolean isInternal(String topic) {
    return topic.startsWith("__");
  }

  @Override
  public String toString() {
    String named = String.join(", ", names);
    return pattern.map(p -> (named.isEmpty() ? "" : named + " and ") + "topics matching '" + p.pattern() + "'")
        .orElse(named);
  }
}
