package dev.quartermaster.store;

import static dev.quartermaster.store.RoutedEvents.bytes;
import static dev.quartermaster.store.RoutedEvents.into;
import static dev.quartermaster.store.RoutedEvents.put;
import static dev.quartermaster.store.RoutedEvents.revisionsThrough;
import static dev.quartermaster.store.RoutedEvents.routes;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The routing tests' agents: one routed watch of {@code /t/} per route {@code node/0 … node/n-1},
 * what each heard, and the revisions each must hear.
 */
public final class RoutedWatches implements AutoCloseable {
  private final List<BlockingQueue<StoreEvent>> heard = new ArrayList<>();
  private final List<Watch> watches = new ArrayList<>();
  private final List<List<Long>> expected = new ArrayList<>();

  private RoutedWatches(Store store, int routes) {
    long from = store.currentRevision();
    for (int i = 0; i < routes; i++) {
      var queue = new LinkedBlockingQueue<StoreEvent>();
      heard.add(queue);
      watches.add(store.watch("/t/", "node/" + i, from, into(queue)));
      expected.add(new ArrayList<>());
    }
  }

  public static RoutedWatches open(Store store, int routes) {
    return new RoutedWatches(store, routes);
  }

  /** Route {@code i}'s task created on it, then moved to the next route: both hear the move. */
  public void createAndMove(Store store, int i) {
    int next = (i + 1) % expected.size();
    expect(i, put(store, new Txn.Op.Put("/t/" + i, bytes("on " + i), routes("node/" + i))));
    long moved =
        put(
            store,
            new Txn.Op.Put("/t/" + i, bytes("on " + next), routes("node/" + i, "node/" + next)));
    expect(i, moved);
    expect(next, moved);
  }

  public void expect(int route, long revision) {
    expected.get(route).add(revision);
  }

  public void expectAll(long revision) {
    expected.forEach(e -> e.add(revision));
  }

  /** Each route heard exactly what it was to hear, in order, then {@code last} (everyone's). */
  public void assertHeardThrough(long last) throws InterruptedException {
    for (int i = 0; i < expected.size(); i++) {
      var want = new ArrayList<>(expected.get(i));
      want.sort(null);
      want.add(last);
      assertThat(revisionsThrough(heard.get(i), last)).as("route node/%d", i).isEqualTo(want);
    }
  }

  @Override
  public void close() {
    watches.forEach(Watch::close);
  }
}
