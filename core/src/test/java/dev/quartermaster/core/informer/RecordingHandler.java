package dev.quartermaster.core.informer;

import dev.quartermaster.core.informer.FakeSource.Item;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes down what the informer reported, compactly: "add a@1", "update a@1->a@2", "delete a@2".
 */
final class RecordingHandler implements EventHandler<Item> {

  final List<String> seen = new ArrayList<>();

  @Override
  public void onAdd(Item object) {
    seen.add("add " + show(object));
  }

  @Override
  public void onUpdate(Item old, Item current) {
    seen.add("update " + show(old) + "->" + show(current));
  }

  @Override
  public void onDelete(Item lastKnown) {
    seen.add("delete " + show(lastKnown));
  }

  List<String> takeAll() {
    List<String> all = List.copyOf(seen);
    seen.clear();
    return all;
  }

  private static String show(Item i) {
    return i.name() + "@" + i.revision();
  }
}
