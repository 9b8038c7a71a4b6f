package dev.ratisoffload.primitives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Whatever a store holds, what is printed of it holds printable ASCII only, and loses nothing. */
class PrintablePropertiesTest {

  private static final Pattern PRINTABLE_ASCII = Pattern.compile("[\\x20-\\x7e]*");
  private static final Pattern ESCAPE = Pattern.compile("\\\\u([0-9a-f]{4})");

  /** Hostile text: escape sequences, C0 and C1 controls, DEL, bidi overrides, surrogates, plain ASCII. */
  @Provide
  Arbitrary<String> hostile() {
    Arbitrary<String> pieces = Arbitraries.oneOf(
        Arbitraries.strings().all().ofMaxLength(20),
        Arbitraries.strings().withCharRange('\u0000', '\u00ff').ofMaxLength(20),
        Arbitraries.of("\u001b[31m", "\u001b]0;owned\u0007", "\u009b2J", "\r", "\n", "\u202e", "\u007f",
            "\ud83d\ude00", "\\", "\\u001b", "plain-text_1.2"));
    return pieces.list().ofMaxSize(8).map(list -> String.join("", list));
  }

  @Property(tries = 1000)
  void printsOnlyPrintableAscii(@ForAll("hostile") String text) {
    assertTrue(PRINTABLE_ASCII.matcher(Printable.of(text)).matches(), Printable.of(text));
    assertTrue(PRINTABLE_ASCII.matcher(Printable.excerpt(text)).matches(), Printable.excerpt(text));
  }

  @Property(tries = 500)
  void keepsPrintableAsciiAsItIs(@ForAll("hostile") String text) {
    String ascii = text.replaceAll("[^\\x20-\\x7e]", "");
    assertEquals(ascii, Printable.of(ascii));
  }

  /** Messages that quote escaped values are escaped whole again: that must not change them. */
  @Property(tries = 500)
  void escapingTwiceChangesNothing(@ForAll("hostile") String text) {
    assertEquals(Printable.of(text), Printable.of(Printable.of(text)));
  }

  /** Nothing is dropped: text without a backslash of its own comes back from what was printed. */
  @Property(tries = 1000)
  void losesNothing(@ForAll("hostile") String text) {
    String withoutBackslash = text.replace("\\", "");
    assertEquals(withoutBackslash, unescape(Printable.of(withoutBackslash)));
  }

  @Property(tries = 500)
  void keepsLineBreaksAndNothingElse(@ForAll("hostile") String text) {
    String shown = Printable.keepingLines(text);
    assertTrue(Pattern.compile("[\\x20-\\x7e\n]*").matcher(shown).matches(), shown);
    assertEquals(text.split("\n", -1).length, shown.split("\n", -1).length);
  }

  @Property(tries = 300)
  void anExcerptIsShort(@ForAll("hostile") String text) {
    int longest = 80 * "\\uffff".length() + "...".length();
    assertTrue(Printable.excerpt(text).length() <= longest);
  }

  @Example
  void showsAnEscapeSequenceAsText() {
    assertEquals("\\u001b[2J\\u0007id", Printable.of("\u001b[2J\u0007id"));
    assertEquals("null", Printable.of(null));
  }

  private static String unescape(String shown) {
    Matcher m = ESCAPE.matcher(shown);
    StringBuilder text = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(text, Matcher.quoteReplacement(String.valueOf((char) Integer.parseInt(m.group(1), 16))));
    }
    return m.appendTail(text).toString();
  }
}
