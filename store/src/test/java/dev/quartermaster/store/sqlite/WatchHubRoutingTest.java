package dev.quartermaster.store.sqlite;

import static dev.quartermaster.store.RoutedEvents.bytes;
import static dev.quartermaster.store.RoutedEvents.into;
import static dev.quartermaster.store.RoutedEvents.put;
import static dev.quartermaster.store.RoutedEvents.revisionsThrough;
import static dev.quartermaster.store.RoutedEvents.routes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.store.Audience;
import dev.quartermaster.store.StoreEvent;
import dev.quartermaster.store.Txn;
import dev.quartermaster.store.Watch;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A routed watch is offered only its route's changes and everyone's: a hundred agents' watches of
 * one prefix are each woken by their own node's writes, not by every write (the point of routing;
 * the contract tests check that nothing of a route is lost).
 */
@Timeout(60)
class WatchHubRoutingTest {
  private static final int ROUTES = 100;

  @TempDir Path dir;

  @Test
  void eachRouteHearsExactlyItsOwnChangesAndEveryonesInOrder() throws Exception {
    try (var store = SqliteStore.open(dir.resolve("store.db"))) {
      var heard = new ArrayList<BlockingQueue<StoreEvent>>();
      var watches = new ArrayList<Watch>();
      long from = store.currentRevision();
      for (int i = 0; i < ROUTES; i++) {
        var queue = new LinkedBlockingQueue<StoreEvent>();
        heard.add(queue);
        watches.add(store.watch("/t/", "node/" + i, from, into(queue)));
      }
      var expected = new ArrayList<List<Long>>();
      for (int i = 0; i < ROUTES; i++) {
        expected.add(new ArrayList<>());
      }
      for (int i = 0; i < ROUTES; i++) {
        // Each node's task, moved to the next node: both hear the move.
        long created = put(store, new Txn.Op.Put("/t/" + i, bytes("on " + i), routes("node/" + i)));
        expected.get(i).add(created);
        long moved =
            put(
                store,
                new Txn.Op.Put(
                    "/t/" + i,
                    bytes("on " + (i + 1) % ROUTES),
                    routes("node/" + i, "node/" + (i + 1) % ROUTES)));
        expected.get(i).add(moved);
        expected.get((i + 1) % ROUTES).add(moved);
        if (i % 10 == 0) {
          long everyone =
              put(store, new Txn.Op.Put("/t/all-" + i, bytes("all"), Audience.EVERYONE));
          expected.forEach(e -> e.add(everyone));
        }
      }
      put(store, new Txn.Op.Put("/t/nobody", bytes("none"), Audience.routes(Set.of())));
      long last = put(store, new Txn.Op.Put("/t/last", bytes("last")));
      for (int i = 0; i < ROUTES; i++) {
        var want = new ArrayList<>(expected.get(i));
        want.sort(null);
        want.add(last);
        assertThat(revisionsThrough(heard.get(i), last)).as("route node/%d", i).isEqualTo(want);
      }
      watches.forEach(Watch::close);
    }
  }
}
