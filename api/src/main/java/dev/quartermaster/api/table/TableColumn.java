package dev.quartermaster.api.table;

/**
 * One column of a served table ({@link ObjectTable}): its header, and whether only {@code -o wide}
 * shows it (kubectl's column priority 1).
 */
public record TableColumn(String name, boolean wide) {
  public TableColumn {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("a column needs a name");
    }
  }
}
