package dev.quartermaster.api.client.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.quartermaster.api.client.ObjectList;
import dev.quartermaster.api.meta.ApiObject;
import java.util.List;

/**
 * A list response: {@code {"kind":"List","revision":N,"items":[...]}}. Each item carries its own
 * {@code kind}; {@code revision} is the store revision the list was read at (watch from there).
 */
public record ListDocument(
    String kind, long revision, @JsonInclude(JsonInclude.Include.ALWAYS) List<ApiObject> items) {
  public static final String KIND = "List";

  public ListDocument {
    kind = kind == null ? KIND : kind;
    items = items == null ? List.of() : List.copyOf(items);
  }

  public static ListDocument of(ObjectList<?> list) {
    return new ListDocument(KIND, list.revision(), List.copyOf(list.items()));
  }
}
