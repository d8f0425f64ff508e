package dev.quartermaster.cli.table;

import java.util.function.Function;

/** One column of a {@code qm get} table: its header and how to compute its cell for an object. */
public record Column<T>(String header, Function<T, String> cell) {

  /** The cell for {@code object}; an empty value reads as {@code <none>}, as in kubectl. */
  public String cellOf(T object) {
    var value = cell.apply(object);
    return value == null || value.isEmpty() ? Table.NONE : value;
  }
}
