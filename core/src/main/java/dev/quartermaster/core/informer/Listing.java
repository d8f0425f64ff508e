package dev.quartermaster.core.informer;

import java.util.List;

/** The result of a list: every object, as of {@code revision}. */
public record Listing<T>(List<T> items, long revision) {
  public Listing {
    items = List.copyOf(items);
  }
}
