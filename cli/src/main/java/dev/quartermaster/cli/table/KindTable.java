package dev.quartermaster.cli.table;

import dev.quartermaster.api.meta.ApiObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The columns {@code qm get} shows for one kind; {@code wideColumns} are added by {@code -o wide}.
 */
public record KindTable<T extends ApiObject>(List<Column<T>> columns, List<Column<T>> wideColumns) {

  public KindTable {
    columns = List.copyOf(columns);
    wideColumns = List.copyOf(wideColumns);
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
    return new Table(headers(wide), objects.stream().map(o -> row(o, wide)).toList());
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
