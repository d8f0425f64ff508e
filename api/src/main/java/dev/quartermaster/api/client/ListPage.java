package dev.quartermaster.api.client;

import java.util.Optional;

/**
 * Which page of a list to read, as Kubernetes pages: at most {@code limit} objects, from where
 * {@code continueToken} (the previous page's {@link ObjectList#continueToken}) left off, or from
 * the first. Every page of a list is read at its first page's revision.
 */
public record ListPage(int limit, Optional<String> continueToken) {
  /** The page size the CLI and the dashboard read in, as kubectl's {@code --chunk-size}. */
  public static final int DEFAULT_LIMIT = 500;

  public ListPage {
    if (limit < 1) {
      throw new IllegalArgumentException("a page holds at least one object, got limit " + limit);
    }
  }

  public static ListPage first(int limit) {
    return new ListPage(limit, Optional.empty());
  }

  /** The page after {@code list}, if there is one. */
  public static Optional<ListPage> after(ObjectList<?> list, int limit) {
    return list.continueToken().map(token -> new ListPage(limit, Optional.of(token)));
  }
}
