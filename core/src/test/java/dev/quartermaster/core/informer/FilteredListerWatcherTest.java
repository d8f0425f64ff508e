package dev.quartermaster.core.informer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.core.informer.FakeSource.Item;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A node's view of a cluster-wide source: only its node's items, with the moves in and out of the
 * view told as adds and deletes, and every other change as a bookmark.
 */
class FilteredListerWatcherTest {
  private final FakeSource source = new FakeSource();
  private final FilteredListerWatcher<Item> view =
      new FilteredListerWatcher<>(source, i -> i.node().equals("n1"), Item::name);
  private final List<String> seen = new ArrayList<>();

  private WatchSink<Item> recording() {
    return new WatchSink<>() {
      @Override
      public void event(WatchEvent<Item> e) {
        var kind =
            switch (e) {
              case WatchEvent.Added<Item> a -> "added";
              case WatchEvent.Modified<Item> m -> "modified";
              case WatchEvent.Deleted<Item> d -> "deleted";
            };
        seen.add(kind + " " + e.object().name() + "@" + e.revision());
      }

      @Override
      public void bookmark(long revision) {
        seen.add("bookmark@" + revision);
      }

      @Override
      public void compacted() {
        seen.add("compacted");
      }

      @Override
      public void closed(String reason) {
        seen.add("closed");
      }
    };
  }

  @Test
  void itemsMovingInAndOutOfTheViewAreAddedAndDeletedAndTheRestAreBookmarks() throws Exception {
    source.put("a", "n1", "1");
    source.put("b", "n2", "1");
    var listing = view.list();
    assertThat(listing.items()).extracting(Item::name).containsExactly("a");
    assertThat(listing.revision()).isEqualTo(2);
    view.watch(listing.revision(), recording());

    source.put("b", "n2", "2"); // 3: elsewhere, stays elsewhere
    source.put("a", "n1", "2"); // 4: ours, changed
    source.put("b", "n1", "3"); // 5: moves here
    source.put("a", "n2", "3"); // 6: moves away
    source.delete("a"); // 7: gone, but not ours any more
    source.delete("b"); // 8: ours, gone
    source.put("c", "n2", "1"); // 9
    assertThat(seen)
        .containsExactly(
            "bookmark@3",
            "modified a@4",
            "added b@5",
            "deleted a@6",
            "bookmark@7",
            "deleted b@8",
            "bookmark@9");
  }

  @Test
  void aRelistStartsTheViewAgainFromWhatTheListHolds() throws Exception {
    source.put("a", "n1", "1");
    view.watch(view.list().revision(), recording());
    source.put("a", "n2", "2"); // moved away: deleted from the view
    source.put("a", "n1", "3"); // back: added
    var again = view.list(); // a relist after a lost watch
    assertThat(again.items()).extracting(Item::name).containsExactly("a");
    view.watch(again.revision(), recording());
    source.put("a", "n1", "4"); // known to the view since the list: modified, not added
    assertThat(seen).containsExactly("deleted a@2", "added a@3", "modified a@4");
  }

  @Test
  void anInformerOverTheViewHoldsOnlyItsNodeAndStaysCaughtUp() throws Exception {
    var env = new dev.quartermaster.core.env.DeterministicEnv(1);
    var informer = Informer.builder(env, view, Item::name, Item::revision).build();
    informer.start();
    env.runUntilIdle();
    source.put("a", "n1", "1");
    source.put("b", "n2", "1");
    source.put("b", "n2", "2");
    env.runUntilIdle();
    assertThat(informer.cache().keys()).containsExactly("a");
    assertThat(informer.syncedRevision())
        .as("changes elsewhere still move the synced revision")
        .isEqualTo(3);
  }
}
