package dev.quartermaster.cli.output;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.quartermaster.api.codec.ObjectCodec;
import dev.quartermaster.api.meta.ApiObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Objects as YAML or JSON documents, in the codec's stable form (sorted keys, empty values left
 * out), so that what {@code get} prints can be fed back to {@code apply}.
 */
public final class Documents {
  private static final String SEPARATOR = "---\n";

  private Documents() {}

  /** One object as one YAML document. */
  public static String yaml(ApiObject object) {
    return ObjectCodec.toYaml(object);
  }

  /** Several objects as a multi-document YAML stream, {@code ---} between documents. */
  public static String yaml(List<? extends ApiObject> objects) {
    return String.join(SEPARATOR, objects.stream().map(ObjectCodec::toYaml).toList());
  }

  /**
   * No objects, as YAML: the list object JSON prints ({@code kind: List}, {@code items: []}), so a
   * pipe into a YAML reader gets a document rather than nothing.
   */
  public static String emptyYamlList() {
    return "kind: List\nitems: []\n";
  }

  /** One object as indented JSON. */
  public static String json(ApiObject object) {
    return pretty(tree(object));
  }

  /**
   * Several objects as one JSON object {@code {"kind": "List", "items": [...]}}, as kubectl prints
   * lists.
   */
  public static String json(List<? extends ApiObject> objects) {
    return pretty(listTree(objects));
  }

  /** The list document of {@code objects}, as a tree. */
  static JsonNode listTree(List<? extends ApiObject> objects) {
    var list = ObjectCodec.json().createObjectNode();
    list.put("kind", "List");
    var items = list.putArray("items");
    objects.forEach(o -> items.add(tree(o)));
    return list;
  }

  static JsonNode tree(ApiObject object) {
    try {
      return ObjectCodec.json().readTree(ObjectCodec.toJson(object));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String pretty(JsonNode node) {
    try {
      return ObjectCodec.json().writerWithDefaultPrettyPrinter().writeValueAsString(node) + "\n";
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
