package dev.quartermaster.api.table;

import dev.quartermaster.api.meta.ApiObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The columns {@code qm get} shows for one kind; {@code wideColumns} are added by {@code -o wide}.
 * {@code order} is the listing order of its rows (a stable sort: equal objects keep the server's
 * order).
 */
public record KindTable<T extends ApiObject>(
    List<Column<T>> columns, List<Column<T>> wideColumns, Comparator<? super T> order) {

  public KindTable {
    columns = List.copyOf(columns);
    wideColumns = List.copyOf(wideColumns);
  }

  /** Rows in the order the server lists them (by name). */
  public KindTable(List<Column<T>> columns, List<Column<T>> wideColumns) {
    this(columns, wideColumns, (a, b) -> 0);
  }

  public List<T> inOrder(List<T> objects) {
    return objects.stream().sorted(order).toList();
  }

  public List<String> headers(boolean wide) {
    return shown(wide).stream().map(Column::header).toList();
  }

  /** The widths a watched table starts its columns at (see {@link Column#streamWidth}). */
  public List<Integer> streamWidths(boolean wide) {
    return shown(wide).stream().map(Column::streamWidth).toList();
  }

  public List<String> row(T object, boolean wide) {
    return shown(wide).stream().map(c -> c.cellOf(object)).toList();
  }

  public Table table(List<T> objects, boolean wide) {
    return new Table(headers(wide), inOrder(objects).stream().map(o -> row(o, wide)).toList());
  }

  private List<Column<T>> shown(boolean wide) {
    if (!wide) {
      return columns;
    }
    var all = new ArrayList<>(columns);
    all.addAll(wideColumns);
    return all;
  }
}
