package dev.quartermaster.api.client;

import dev.quartermaster.api.meta.ApiObject;
import java.util.List;

/** The objects a list returned and the store revision it read at (watch from there). */
public record ObjectList<T extends ApiObject>(List<T> items, long revision) {
  public ObjectList {
    items = List.copyOf(items);
  }
}
