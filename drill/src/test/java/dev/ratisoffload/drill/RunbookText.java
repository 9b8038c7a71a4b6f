package dev.ratisoffload.drill;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fenced code blocks of a Markdown page and the lines in them, as an operator would copy them: a
 * line ending in {@code \} continues on the next, and a trailing {@code # comment} is not part of it.
 */
final class RunbookText {

  /** One fenced block: where it starts, its info string ({@code properties}, {@code java}, or empty). */
  record Block(int line, String info, List<String> lines) {}

  /** One logical line of a block: the page's line number where it starts, the block's info string. */
  record Line(int line, String info, String text) {
    @Override
    public String toString() {
      return "line " + line + ": " + text;
    }
  }

  private static final Pattern OPENING = Pattern.compile("^( *)```\\s*([A-Za-z0-9_+-]*)\\s*$");
  private static final Pattern FENCE = Pattern.compile("^ *```");
  private static final Pattern CLOSING = Pattern.compile("^ *```\\s*$");
  private static final Pattern COMMENT = Pattern.compile("\\s+#(?:\\s.*)?$");

  private RunbookText() {}

  /**
   * The fenced blocks, in order. A fence that is neither a plain opening (with an optional info word)
   * nor a bare closing is an error: Markdown would not close the block there, and every block after it
   * would turn inside out.
   */
  static List<Block> blocks(String markdown) {
    List<Block> blocks = new ArrayList<>();
    String[] lines = markdown.split("\n", -1);
    int i = 0;
    while (i < lines.length) {
      String line = lines[i];
      if (!FENCE.matcher(line).find()) {
        i++;
        continue;
      }
      Matcher open = OPENING.matcher(line);
      if (!open.matches()) {
        throw new IllegalArgumentException("line " + (i + 1) + ": '" + line + "' is not a fence that opens a block");
      }
      int start = i + 1;
      int indent = open.group(1).length();
      List<String> body = new ArrayList<>();
      i++;
      while (true) {
        if (i == lines.length) {
          throw new IllegalArgumentException("line " + start + ": the block opened here is never closed");
        }
        String inner = lines[i];
        if (CLOSING.matcher(inner).matches()) {
          break;
        }
        if (FENCE.matcher(inner).find()) {
          throw new IllegalArgumentException("line " + (i + 1) + ": '" + inner + "' does not close the block"
              + " opened on line " + start + ": a closing fence stands alone on its line");
        }
        body.add(inner.substring(Math.min(indent, inner.length() - inner.stripLeading().length())));
        i++;
      }
      blocks.add(new Block(start, open.group(2), List.copyOf(body)));
      i++;
    }
    return blocks;
  }

  /** The block's logical lines, continuations joined, trailing comments and blank lines dropped. */
  static List<Line> lines(Block block) {
    List<Line> result = new ArrayList<>();
    StringBuilder current = null;
    int first = 0;
    for (int n = 0; n < block.lines().size(); n++) {
      String text = block.lines().get(n).strip();
      boolean continues = text.endsWith("\\");
      if (continues) {
        text = text.substring(0, text.length() - 1).strip();
      }
      if (current == null) {
        current = new StringBuilder();
        first = block.line() + 1 + n;
      } else {
        current.append(' ');
      }
      current.append(text);
      if (!continues) {
        String joined = COMMENT.matcher(current.toString()).replaceFirst("").strip();
        if (!joined.isEmpty()) {
          result.add(new Line(first, block.info(), joined));
        }
        current = null;
      }
    }
    if (current != null) {
      throw new IllegalArgumentException("line " + first + ": the last line of the block ends in a continuation");
    }
    return result;
  }

  /** Every logical line of every fenced block, in the page's order. */
  static List<Line> allLines(String markdown) {
    List<Line> all = new ArrayList<>();
    for (Block block : blocks(markdown)) {
      all.addAll(lines(block));
    }
    return all;
  }
}
