package dev.ratisoffload.kafka.format;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Which consumer groups a backup records or a restore commits: each pattern is a regular expression that
 * must match a group id entirely, so a plain name selects exactly that group (escape {@code .} and the
 * other metacharacters a name holds to be exact).
 */
public final class GroupSelection {

  /** Every group. */
  public static final GroupSelection ALL = new GroupSelection(List.of(Pattern.compile(".*", Pattern.DOTALL)));

  private final List<Pattern> patterns;

  private GroupSelection(List<Pattern> patterns) {
    this.patterns = patterns;
  }

  /**
   * The groups matching any of {@code patterns}.
   *
   * @throws IllegalArgumentException naming a pattern that is not a regular expression, or for none at all
   */
  public static GroupSelection of(List<String> patterns) {
    if (patterns.isEmpty()) {
      throw new IllegalArgumentException("no consumer group pattern given");
    }
    return new GroupSelection(patterns.stream().map(p -> RegularExpressions.compile("consumer group", p))
        .toList());
  }

  public boolean matches(String group) {
    return patterns.stream().anyMatch(p -> p.matcher(group).matches());
  }

  @Override
  public String toString() {
    return patterns.stream().map(Pattern::pattern).toList().toString();
  }
}
