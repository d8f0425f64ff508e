package dev.quartermaster.api.table;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.quartermaster.api.meta.ApiObject;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * A kind's table as the server renders it ({@code GET …?as=table}, Kubernetes' server-side
 * printing): every column, the wide ones flagged, and one row of cells per object, in listing
 * order. The client only picks the columns and aligns them, so {@code qm get} needs no object model
 * on its start path; it reads this with Jackson's streaming parser alone, which costs a few
 * milliseconds where binding the objects costs a hundred.
 *
 * <p>Wire form: {@code
 * {"kind":"Table","columns":[{"name":"NAME","wide":false},…],"rows":[["node-1",…],…]}}, and for a
 * page with a next one ({@code ?limit=N}) {@code "continue":"TOKEN"}.
 */
public record ObjectTable(
    List<TableColumn> columns, List<List<String>> rows, Optional<String> continueToken) {
  public static final String KIND = "Table";

  /** A whole table, not a page of one. */
  public ObjectTable(List<TableColumn> columns, List<List<String>> rows) {
    this(columns, rows, Optional.empty());
  }

  /** This as a page of a table, {@code next} the next page's token ({@code "continue"}). */
  public ObjectTable withContinue(Optional<String> next) {
    return new ObjectTable(columns, rows, next);
  }

  public ObjectTable {
    columns = List.copyOf(columns);
    rows = rows.stream().map(List::copyOf).toList();
    for (var row : rows) {
      if (row.size() != columns.size()) {
        throw new IllegalArgumentException(
            "a row has " + row.size() + " cells for " + columns.size() + " columns");
      }
    }
  }

  /** {@code objects} in {@code table}'s listing order, every column included. */
  public static <T extends ApiObject> ObjectTable of(KindTable<T> table, List<T> objects) {
    var columns = new ArrayList<TableColumn>();
    table.headers(false).forEach(h -> columns.add(new TableColumn(h, false)));
    table.wideColumns().forEach(c -> columns.add(new TableColumn(c.header(), true)));
    return new ObjectTable(
        columns, table.inOrder(objects).stream().map(o -> table.row(o, true)).toList());
  }

  /** The text table {@code qm get} prints: the narrow columns, or with {@code wide} every one. */
  public Table view(boolean wide) {
    var shown =
        IntStream.range(0, columns.size()).filter(i -> wide || !columns.get(i).wide()).toArray();
    return new Table(
        IntStream.of(shown).mapToObj(i -> columns.get(i).name()).toList(),
        rows.stream().map(r -> IntStream.of(shown).mapToObj(r::get).toList()).toList());
  }

  public String toJson() {
    var out = new StringWriter();
    try (var json = FACTORY.createGenerator(out)) {
      json.writeStartObject();
      json.writeStringField("kind", KIND);
      json.writeArrayFieldStart("columns");
      for (var c : columns) {
        json.writeStartObject();
        json.writeStringField("name", c.name());
        json.writeBooleanField("wide", c.wide());
        json.writeEndObject();
      }
      json.writeEndArray();
      json.writeArrayFieldStart("rows");
      for (var row : rows) {
        json.writeStartArray();
        for (var cell : row) {
          json.writeString(cell);
        }
        json.writeEndArray();
      }
      json.writeEndArray();
      if (continueToken.isPresent()) {
        json.writeStringField("continue", continueToken.get());
      }
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /**
   * The table in {@code body}; anything but the wire form above is an {@link
   * IllegalArgumentException}.
   */
  public static ObjectTable fromJson(byte[] body) {
    try (var json = FACTORY.createParser(body)) {
      expect(json, JsonToken.START_OBJECT);
      var columns = new ArrayList<TableColumn>();
      var rows = new ArrayList<List<String>>();
      var kind = "";
      Optional<String> next = Optional.empty();
      while (json.nextToken() == JsonToken.FIELD_NAME) {
        var field = json.currentName();
        switch (field) {
          case "kind" -> kind = text(json);
          case "continue" -> next = Optional.of(text(json)).filter(t -> !t.isEmpty());
          case "columns" -> {
            expect(json, JsonToken.START_ARRAY);
            while (json.nextToken() == JsonToken.START_OBJECT) {
              var name = "";
              var wide = false;
              while (json.nextToken() == JsonToken.FIELD_NAME) {
                switch (json.currentName()) {
                  case "name" -> name = text(json);
                  case "wide" -> wide = json.nextToken() == JsonToken.VALUE_TRUE;
                  default -> skipValue(json);
                }
              }
              at(json, JsonToken.END_OBJECT);
              columns.add(new TableColumn(name, wide));
            }
            at(json, JsonToken.END_ARRAY);
          }
          case "rows" -> {
            expect(json, JsonToken.START_ARRAY);
            while (json.nextToken() == JsonToken.START_ARRAY) {
              var row = new ArrayList<String>();
              while (json.nextToken() == JsonToken.VALUE_STRING) {
                row.add(json.getText());
              }
              at(json, JsonToken.END_ARRAY);
              rows.add(row);
            }
            at(json, JsonToken.END_ARRAY);
          }
          default -> skipValue(json);
        }
      }
      at(json, JsonToken.END_OBJECT);
      if (!kind.equals(KIND)) {
        throw new IllegalArgumentException("not a table (kind '" + kind + "')");
      }
      return new ObjectTable(columns, rows, next);
    } catch (IOException e) {
      throw new IllegalArgumentException("a table that does not parse: " + e.getMessage(), e);
    }
  }

  private static final JsonFactory FACTORY = new JsonFactory();

  private static void expect(JsonParser json, JsonToken token) throws IOException {
    if (json.nextToken() != token) {
      throw new IllegalArgumentException(
          "a table that does not parse: expected " + token + " at " + json.currentLocation());
    }
  }

  /** The token the parser is at must be {@code token}. */
  private static void at(JsonParser json, JsonToken token) {
    if (json.currentToken() != token) {
      throw new IllegalArgumentException(
          "a table that does not parse: expected " + token + " at " + json.currentLocation());
    }
  }

  private static String text(JsonParser json) throws IOException {
    expect(json, JsonToken.VALUE_STRING);
    return json.getText();
  }

  private static void skipValue(JsonParser json) throws IOException {
    json.nextToken();
    json.skipChildren();
  }
}
