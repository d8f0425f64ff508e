package dev.quartermaster.cli.output;

import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.Kind;
import dev.quartermaster.cli.table.KindTable;
import dev.quartermaster.cli.table.KindTables;
import dev.quartermaster.cli.table.Table;
import java.io.PrintWriter;
import java.time.Clock;
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
  /** The column widths fixed by the first rows of a stream; empty until the header is printed. */
  private Optional<List<Integer>> streamWidths = Optional.empty();
  private boolean streamedDocument;

  public ObjectPrinter(Kind<T> kind, OutputFormat format, Clock clock, PrintWriter out) {
    this.kind = kind;
    this.format = format;
    this.clock = clock;
    this.out = out;
  }

  /** One object, as {@code get KIND NAME} shows it. */
  public void printOne(T object) {
    switch (format) {
      case TABLE, WIDE -> out.print(table().table(List.of(object), wide()).render());
      case YAML -> out.print(Documents.yaml(object));
      case JSON -> out.print(Documents.json(object));
    }
    out.flush();
  }

  /** Every object of a list, as {@code get KIND} shows it. */
  public void printList(List<T> objects) {
    switch (format) {
      case TABLE, WIDE -> out.print(table().table(objects, wide()).render());
      case YAML -> out.print(Documents.yaml(objects));
      case JSON -> out.print(Documents.json(objects));
    }
    out.flush();
  }

  /** The first list of a watch; a table's column widths are fixed by it. */
  public void startStream(List<T> objects) {
    if (format.isTable()) {
      if (!objects.isEmpty()) {
        var t = table().table(objects, wide());
        streamWidths = Optional.of(t.widths());
        out.print(t.render());
      }
    } else {
      objects.forEach(this::document);
    }
    out.flush();
  }

  /** One changed object of a watch: a row, or a document. */
  public void streamOne(T object) {
    if (format.isTable()) {
      var t = table();
      var row = t.row(object, wide());
      if (streamWidths.isEmpty()) {
        var first = new Table(t.headers(wide()), List.of(row));
        streamWidths = Optional.of(first.widths());
        out.print(Table.line(first.headers(), streamWidths.get()));
      }
      out.print(Table.line(row, streamWidths.get()));
    } else {
      document(object);
    }
    out.flush();
  }

  private void document(T object) {
    if (format == OutputFormat.YAML) {
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
