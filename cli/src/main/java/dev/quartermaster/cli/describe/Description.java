package dev.quartermaster.cli.describe;

import dev.quartermaster.api.table.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The text of {@code qm describe}: {@code Label: value} fields, indented sections and embedded
 * tables. Values of fields at the same depth are aligned, as kubectl aligns them.
 */
public final class Description {
  private static final int STEP = 2;

  private sealed interface Line {
    int indent();
  }

  /** A field; an empty label continues the previous field's value on a new line. */
  private record Field(int indent, String label, String value) implements Line {}

  private record Text(int indent, String text) implements Line {}

  private final List<Line> lines = new ArrayList<>();
  private int indent;

  /** {@code Label: value}; an empty value reads {@code <none>}. */
  public Description field(String label, String value) {
    lines.add(new Field(indent, label, value.isEmpty() ? Table.NONE : value));
    return this;
  }

  public Description field(String label, long value) {
    return field(label, Long.toString(value));
  }

  /** A field with one value per line, e.g. labels; none reads {@code <none>}. */
  public Description values(String label, List<String> values) {
    if (values.isEmpty()) {
      return field(label, "");
    }
    field(label, values.getFirst());
    values.stream().skip(1).forEach(v -> lines.add(new Field(indent, "", v)));
    return this;
  }

  /** {@code Title:} followed by what {@code body} writes, indented one step. */
  public Description section(String title, Consumer<Description> body) {
    lines.add(new Text(indent, title + ":"));
    indent += STEP;
    try {
      body.accept(this);
    } finally {
      indent -= STEP;
    }
    return this;
  }

  /** {@code Title:} with a table below it, or {@code Title: <none>} when the table has no rows. */
  public Description table(String title, Table table) {
    if (table.rows().isEmpty()) {
      return field(title, "");
    }
    return section(title, d -> table.render().lines().forEach(l -> lines.add(new Text(indent, l))));
  }

  public String render() {
    var out = new StringBuilder();
    for (int i = 0; i < lines.size(); i++) {
      var line = lines.get(i);
      switch (line) {
        case Text t -> out.repeat(' ', t.indent()).append(t.text()).append('\n');
        case Field f -> {
          int width = labelWidth(i);
          var label = f.label().isEmpty() ? "" : f.label() + ":";
          out.repeat(' ', f.indent())
              .append(label)
              .repeat(' ', width - label.length() + STEP)
              .append(f.value())
              .append('\n');
        }
      }
    }
    return out.toString();
  }

  // The widest "Label:" at line i's depth, over the whole description: values at one depth line up.
  private int labelWidth(int i) {
    int depth = lines.get(i).indent();
    int width = 0;
    for (var line : lines) {
      if (line instanceof Field f && f.indent() == depth) {
        width = Math.max(width, f.label().isEmpty() ? 0 : f.label().length() + 1);
      }
    }
    return width;
  }
}
