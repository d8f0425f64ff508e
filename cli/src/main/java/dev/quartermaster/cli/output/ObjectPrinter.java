package dev.quartermaster.cli.output;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.api.table.KindTable;
import dev.quartermaster.api.table.KindTables;
import dev.quartermaster.api.table.Table;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Prints objects of one kind in one {@link OutputFormat}: a whole result for {@code get}, or a
 * stream of rows or documents for {@code get -w}. Ages are measured on the clock at print time.
 */
public final class ObjectPrinter<T extends ApiObject> {
  private final Kind<T> kind;
  private final OutputFormat format;
  private final Clock clock;
  private final PrintWriter out;

  /**
   * A stream's column widths: the first list's, as {@code get} without {@code -w} prints it (or,
   * when the stream starts empty, at least {@link #STREAM_MIN_WIDTH} for names and each column's
   * {@code streamWidth}), grown to the widest cell shown so far; empty until the header is printed.
   */
  private Optional<List<Integer>> streamWidths = Optional.empty();

  private boolean streamedDocument;

  /** The width a watched table's first column (NAME) starts at. */
  static final int STREAM_MIN_WIDTH = 24;

  private final Optional<JsonPathTemplate> template;

  public ObjectPrinter(Kind<T> kind, OutputFormat format, Clock clock, PrintWriter out) {
    this(kind, format, Optional.empty(), clock, out);
  }

  /** A printer of {@code output}: its format, and for {@code -o jsonpath=…} its template. */
  public ObjectPrinter(Kind<T> kind, Output output, Clock clock, PrintWriter out) {
    this(kind, output.format(), output.template(), clock, out);
  }

  private ObjectPrinter(
      Kind<T> kind,
      OutputFormat format,
      Optional<JsonPathTemplate> template,
      Clock clock,
      PrintWriter out) {
    this.kind = kind;
    this.format = format;
    this.template = template;
    this.clock = clock;
    this.out = out;
    if (format == OutputFormat.JSONPATH && template.isEmpty()) {
      throw new IllegalArgumentException("-o jsonpath needs its template");
    }
  }

  /** One object, as {@code get KIND NAME} shows it. */
  public void printOne(T object) {
    switch (format) {
      case TABLE, WIDE -> out.print(table().table(List.of(object), wide()).render());
      case YAML -> out.print(Documents.yaml(object));
      case JSON -> out.print(Documents.json(object));
      case NAME -> out.println(object.ref());
      case JSONPATH -> out.print(template.orElseThrow().render(Documents.tree(object)));
    }
    out.flush();
  }

  /**
   * Every object of a list, as {@code get KIND} shows it; an empty list is an empty list document
   * in YAML and JSON.
   */
  public void printList(List<T> objects) {
    if (objects.isEmpty() && format == OutputFormat.YAML) {
      out.print(Documents.emptyYamlList());
      out.flush();
      return;
    }
    switch (format) {
      case TABLE, WIDE -> out.print(table().table(objects, wide()).render());
      case YAML -> out.print(Documents.yaml(objects));
      case JSON -> out.print(Documents.json(objects));
      case NAME -> objects.forEach(o -> out.println(o.ref()));
      case JSONPATH -> out.print(template.orElseThrow().render(Documents.listTree(objects)));
    }
    out.flush();
  }

  /** The first list of a watch; a table's column widths are fixed by it. */
  public void startStream(List<T> objects) {
    if (format.isTable()) {
      if (!objects.isEmpty()) {
        // The first lines are the plain listing's, to the column: later rows widen a column only
        // when a cell is wider than any before it.
        var t = table().table(objects, wide());
        streamWidths = Optional.of(t.widths());
        out.print(Table.line(t.headers(), streamWidths.get()));
        t.rows().forEach(r -> out.print(Table.line(r, streamWidths.get())));
      }
    } else {
      objects.forEach(this::document);
    }
    out.flush();
  }

  /**
   * An object a watch saw deleted: its last row with {@code (deleted)} after it, so the stream does
   * not end on a row that looks alive (kubectl repeats the row unmarked); or its document.
   */
  public void streamDeleted(T object) {
    stream(object, List.of(DELETED));
  }

  /** What marks a deleted object's last row in a watch. */
  public static final String DELETED = "(deleted)";

  /** One changed object of a watch: a row, or a document. */
  public void streamOne(T object) {
    stream(object, List.of());
  }

  /** A streamed row, with {@code marks} after its last column; or a document. */
  private void stream(T object, List<String> marks) {
    if (format.isTable()) {
      var t = table();
      var row = t.row(object, wide());
      if (streamWidths.isEmpty()) {
        var first = new Table(t.headers(wide()), List.of(row));
        streamWidths = Optional.of(atLeastMinimum(first.widths(), t.streamWidths(wide())));
        out.print(Table.line(first.headers(), streamWidths.get()));
      }
      streamWidths = Optional.of(grown(streamWidths.get(), row));
      var cells = new ArrayList<>(row);
      cells.addAll(marks);
      out.print(Table.line(cells, streamWidths.get()));
    } else {
      document(object);
    }
    out.flush();
  }

  /**
   * {@code widths}, each at least its column's starting width (NAME's at least {@link
   * #STREAM_MIN_WIDTH}).
   */
  private static List<Integer> atLeastMinimum(List<Integer> widths, List<Integer> columns) {
    var out = new ArrayList<Integer>(widths.size());
    for (int c = 0; c < widths.size(); c++) {
      out.add(
          Math.max(
              widths.get(c), c == 0 ? Math.max(STREAM_MIN_WIDTH, columns.get(c)) : columns.get(c)));
    }
    return out;
  }

  private static List<Integer> grown(List<Integer> widths, List<String> row) {
    var out = new ArrayList<Integer>(widths);
    for (int c = 0; c < Math.min(out.size(), row.size()); c++) {
      out.set(c, Math.max(out.get(c), row.get(c).length()));
    }
    return out;
  }

  private void document(T object) {
    if (format == OutputFormat.NAME) {
      out.println(object.ref());
    } else if (format == OutputFormat.JSONPATH) {
      out.println(template.orElseThrow().render(Documents.tree(object)));
    } else if (format == OutputFormat.YAML) {
      out.print(streamedDocument ? "---\n" + Documents.yaml(object) : Documents.yaml(object));
    } else {
      out.print(Documents.json(object));
    }
    streamedDocument = true;
  }

  private KindTable<T> table() {
    return KindTables.of(kind, clock.instant());
  }

  private boolean wide() {
    return format == OutputFormat.WIDE;
  }
}
