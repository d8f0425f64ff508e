package dev.quartermaster.api.table;

import java.util.function.Function;

/**
 * One column of a {@code qm get} table: its header, how to compute its cell for an object, and the
 * width a watched table ({@code get -w}) starts it at, so that the values that arrive later (a
 * task's reasons: {@code WaitingForAllocation}) fit without pushing the columns after it right.
 */
public record Column<T>(String header, Function<T, String> cell, int streamWidth) {

  /** A column whose watched width starts at its header's, or 8. */
  public Column(String header, Function<T, String> cell) {
    this(header, cell, Math.max(header.length(), 8));
  }

  /** The cell for {@code object}; an empty value reads as {@code <none>}, as in kubectl. */
  public String cellOf(T object) {
    var value = cell.apply(object);
    return value == null || value.isEmpty() ? Table.NONE : value;
  }
}
