package dev.quartermaster.store.sqlite;

import static dev.quartermaster.store.RoutedEvents.bytes;
import static dev.quartermaster.store.RoutedEvents.put;

import dev.quartermaster.store.Audience;
import dev.quartermaster.store.RoutedWatches;
import dev.quartermaster.store.Txn;
import java.nio.file.Path;
import java.util.Set;
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
    try (var store = SqliteStore.open(dir.resolve("store.db"));
        var agents = RoutedWatches.open(store, ROUTES)) {
      for (int i = 0; i < ROUTES; i++) {
        agents.createAndMove(store, i);
        if (i % 10 == 0) {
          agents.expectAll(
              put(store, new Txn.Op.Put("/t/all-" + i, bytes("all"), Audience.EVERYONE)));
        }
      }
      put(store, new Txn.Op.Put("/t/nobody", bytes("none"), Audience.routes(Set.of())));
      agents.assertHeardThrough(put(store, new Txn.Op.Put("/t/last", bytes("last"))));
    }
  }
}
