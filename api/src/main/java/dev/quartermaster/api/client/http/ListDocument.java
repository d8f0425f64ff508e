package dev.quartermaster.api.client.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.quartermaster.api.client.ObjectList;
import dev.quartermaster.api.meta.ApiObject;
import java.util.List;
import java.util.Optional;

/**
 * A list response: {@code {"kind":"List","revision":N,"items":[...]}}, and for a page with a next
 * one ({@code ?limit=N}) {@code "continue":"TOKEN"}, to pass as {@code ?continue=TOKEN}. Each item
 * carries its own {@code kind}; {@code revision} is the store revision the list was read at (watch
 * from there: every page of a list is read at its first page's).
 */
public record ListDocument(
    String kind,
    long revision,
    @JsonInclude(JsonInclude.Include.ALWAYS) List<ApiObject> items,
    @JsonProperty("continue") @JsonInclude(JsonInclude.Include.NON_EMPTY) String continueToken) {
  public static final String KIND = "List";

  public ListDocument {
    kind = kind == null ? KIND : kind;
    items = items == null ? List.of() : List.copyOf(items);
    continueToken = continueToken == null ? "" : continueToken;
  }

  public static ListDocument of(ObjectList<?> list) {
    return new ListDocument(
        KIND, list.revision(), List.copyOf(list.items()), list.continueToken().orElse(""));
  }

  /** The next page's token, if there is a next page. */
  public Optional<String> next() {
    return continueToken.isEmpty() ? Optional.empty() : Optional.of(continueToken);
  }
}
