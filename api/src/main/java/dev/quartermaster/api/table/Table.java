package dev.quartermaster.api.table;

import java.util.ArrayList;
import java.util.List;

/**
 * Left-aligned text columns separated by three spaces, like kubectl's tables. The last column is
 * not padded, so lines carry no trailing blanks.
 */
public record Table(List<String> headers, List<List<String>> rows) {
  public static final String NONE = "<none>";
  private static final String GAP = "   ";

  public Table {
    headers = List.copyOf(headers);
    rows = rows.stream().map(List::copyOf).toList();
  }

  /** Each column's width: its widest cell or header. */
  public List<Integer> widths() {
    var widths = new ArrayList<Integer>();
    for (int c = 0; c < headers.size(); c++) {
      int w = headers.get(c).length();
      for (var row : rows) {
        w = Math.max(w, c < row.size() ? row.get(c).length() : 0);
      }
      widths.add(w);
    }
    return widths;
  }

  /** The header line and every row, each ending in a newline. */
  public String render() {
    var widths = widths();
    var out = new StringBuilder(line(headers, widths));
    rows.forEach(r -> out.append(line(r, widths)));
    return out.toString();
  }

  /**
   * One row padded to {@code widths}; a cell wider than its column pushes the rest right rather
   * than being cut, because a watch prints rows long after the widths were fixed.
   */
  public static String line(List<String> cells, List<Integer> widths) {
    var out = new StringBuilder();
    for (int c = 0; c < cells.size(); c++) {
      var cell = cells.get(c);
      out.append(cell);
      if (c < cells.size() - 1) {
        int width = c < widths.size() ? widths.get(c) : cell.length();
        out.repeat(' ', Math.max(0, width - cell.length())).append(GAP);
      }
    }
    return out.append('\n').toString();
  }
}
