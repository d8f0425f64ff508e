package dev.quartermaster.api.client;

import dev.quartermaster.api.meta.ApiObject;
import java.util.List;
import java.util.Optional;

/**
 * The objects a list returned and the store revision it read at (watch from there); for one page of
 * a paged list ({@link ListPage}), where the next page starts, if there is one.
 */
public record ObjectList<T extends ApiObject>(
    List<T> items, long revision, Optional<String> continueToken) {
  public ObjectList {
    items = List.copyOf(items);
  }

  /** A whole list, not a page of one. */
  public ObjectList(List<T> items, long revision) {
    this(items, revision, Optional.empty());
  }
}
