package dev.quartermaster.cli.output;

import com.fasterxml.jackson.databind.JsonNode;
import dev.quartermaster.cli.CliException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code -o jsonpath=TEMPLATE}, the part of kubectl's JSONPath that scripts use: text, and in
 * braces a path from the document ({@code {.status.phase}}, {@code {.items[*].metadata.name}},
 * {@code {.items[0].spec}}), a string ({@code {"\n"}}), or {@code {range PATH}...{end}} repeating
 * its inside for each value. Several values print separated by spaces; a string prints as itself,
 * anything else as JSON; a path that finds nothing prints nothing. A template it cannot read is an
 * error that says where.
 */
public final class JsonPathTemplate {
  private sealed interface Part {}

  private record Text(String text) implements Part {}

  private record Path(List<Step> steps) implements Part {}

  private record Range(Path over, List<Part> body) implements Part {}

  private sealed interface Step {}

  private record Field(String name) implements Step {}

  private record Index(int index) implements Step {}

  private record Every() implements Step {}

  private final List<Part> parts;

  private JsonPathTemplate(List<Part> parts) {
    this.parts = parts;
  }

  public static JsonPathTemplate parse(String template) {
    var reader = new Reader(template);
    var parts = reader.parts(false);
    return new JsonPathTemplate(parts);
  }

  /** What the template prints for {@code document}. */
  public String render(JsonNode document) {
    var out = new StringBuilder();
    render(parts, document, out);
    return out.toString();
  }

  private static void render(List<Part> parts, JsonNode at, StringBuilder out) {
    for (var part : parts) {
      switch (part) {
        case Text t -> out.append(t.text());
        case Path p -> {
          var values = select(p, at);
          for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
              out.append(' ');
            }
            var v = values.get(i);
            out.append(v.isValueNode() ? v.asText() : v.toString());
          }
        }
        case Range r -> {
          for (var v : select(r.over(), at)) {
            render(r.body(), v, out);
          }
        }
      }
    }
  }

  private static List<JsonNode> select(Path path, JsonNode root) {
    var current = new ArrayList<JsonNode>(List.of(root));
    for (var step : path.steps()) {
      var next = new ArrayList<JsonNode>();
      for (var node : current) {
        switch (step) {
          case Field f -> {
            var v = node.get(f.name());
            if (v != null && !v.isNull()) {
              next.add(v);
            }
          }
          case Index i -> {
            int index = i.index() < 0 ? node.size() + i.index() : i.index();
            if (node.isArray() && index >= 0 && index < node.size()) {
              next.add(node.get(index));
            }
          }
          case Every e -> node.forEach(next::add);
        }
      }
      current = next;
    }
    return current;
  }

  /** Reads a template, left to right; a mistake names its column. */
  private static final class Reader {
    private final String text;
    private int at;

    Reader(String text) {
      this.text = text;
    }

    List<Part> parts(boolean inRange) {
      var parts = new ArrayList<Part>();
      var literal = new StringBuilder();
      while (at < text.length()) {
        char c = text.charAt(at);
        if (c != '{') {
          literal.append(c);
          at++;
          continue;
        }
        if (!literal.isEmpty()) {
          parts.add(new Text(literal.toString()));
          literal.setLength(0);
        }
        int close = text.indexOf('}', at);
        if (close < 0) {
          throw bad("a '{' at column " + (at + 1) + " is never closed");
        }
        var inside = text.substring(at + 1, close).strip();
        int start = at;
        at = close + 1;
        if (inside.equals("end")) {
          if (!inRange) {
            throw bad("{end} at column " + (start + 1) + " closes no {range}");
          }
          return parts;
        }
        if (inside.startsWith("range ")) {
          var over = path(inside.substring("range ".length()).strip(), start);
          var body = parts(true);
          parts.add(new Range(over, body));
          continue;
        }
        if (inside.startsWith("\"") && inside.endsWith("\"") && inside.length() >= 2) {
          parts.add(new Text(unescape(inside.substring(1, inside.length() - 1))));
          continue;
        }
        parts.add(path(inside, start));
      }
      if (inRange) {
        throw bad("a {range} is never closed by {end}");
      }
      if (!literal.isEmpty()) {
        parts.add(new Text(literal.toString()));
      }
      return parts;
    }

    private Path path(String expression, int column) {
      var e = expression.startsWith("$") ? expression.substring(1) : expression;
      if (!e.startsWith(".") && !e.startsWith("[") && !e.isEmpty()) {
        throw bad(
            "'"
                + expression
                + "' at column "
                + (column + 1)
                + ": a path starts with '.' (as {.metadata.name})");
      }
      var steps = new ArrayList<Step>();
      int i = 0;
      while (i < e.length()) {
        char c = e.charAt(i);
        if (c == '.') {
          int j = i + 1;
          while (j < e.length() && e.charAt(j) != '.' && e.charAt(j) != '[') {
            j++;
          }
          if (j > i + 1) {
            steps.add(new Field(e.substring(i + 1, j)));
          }
          i = j;
        } else if (c == '[') {
          int j = e.indexOf(']', i);
          if (j < 0) {
            throw bad("'" + expression + "': a '[' is never closed");
          }
          var index = e.substring(i + 1, j).strip();
          if (index.equals("*")) {
            steps.add(new Every());
          } else {
            try {
              steps.add(new Index(Integer.parseInt(index)));
            } catch (NumberFormatException ex) {
              throw bad("'" + expression + "': [" + index + "] must be a number or *");
            }
          }
          i = j + 1;
        } else {
          throw bad("'" + expression + "': unexpected '" + c + "'");
        }
      }
      return new Path(steps);
    }

    private static String unescape(String s) {
      return s.replace("\\n", "\n").replace("\\t", "\t").replace("\\\"", "\"");
    }

    private CliException bad(String why) {
      return new CliException("-o jsonpath: " + why);
    }
  }
}
