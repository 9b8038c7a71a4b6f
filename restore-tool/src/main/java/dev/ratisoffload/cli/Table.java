package dev.ratisoffload.cli;

import dev.ratisoffload.primitives.Printable;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A plain text table: a header row and columns padded to their widest cell. Cells often hold what a store
 * says, so each is made printable ({@link Printable}).
 */
final class Table {

  private final List<String[]> rows = new ArrayList<>();
  private final int columns;

  Table(String... headers) {
    this.columns = headers.length;
    rows.add(headers);
  }

  Table row(Object... cells) {
    if (cells.length != columns) {
      throw new IllegalArgumentException(cells.length + " cells for " + columns + " columns");
    }
    String[] text = new String[cells.length];
    for (int i = 0; i < cells.length; i++) {
      text[i] = cells[i] == null ? "-" : Printable.of(cells[i].toString());
    }
    rows.add(text);
    return this;
  }

  void print(PrintWriter out) {
    int[] widths = new int[columns];
    for (String[] row : rows) {
      for (int i = 0; i < columns; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        line.append(row[i]);
        if (i < columns - 1) {
          line.append(" ".repeat(widths[i] - row[i].length() + 2));
        }
      }
      out.println(line.toString().stripTrailing());
    }
    out.flush();
  }
}
