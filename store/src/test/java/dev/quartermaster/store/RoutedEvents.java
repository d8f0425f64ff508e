package dev.quartermaster.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/** What the routing tests of each store write and how they collect what a routed watch heard. */
public final class RoutedEvents {
  private RoutedEvents() {}

  public static Audience routes(String... names) {
    return Audience.routes(Set.of(names));
  }

  /** Commits {@code op} alone; its revision. */
  public static long put(Store store, Txn.Op op) {
    return store.txn(Txn.when(List.of(), List.of(op))).revision();
  }

  public static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The revisions {@code queue} received, up to and including {@code last}. */
  public static List<Long> revisionsThrough(BlockingQueue<StoreEvent> queue, long last)
      throws InterruptedException {
    var out = new ArrayList<Long>();
    while (out.isEmpty() || out.getLast() < last) {
      var event = queue.poll(30, TimeUnit.SECONDS);
      assertThat(event).as("an event within 30 s after " + out).isNotNull();
      out.add(event.revision());
    }
    return out;
  }

  /** A listener that queues every event and fails on a compaction. */
  public static WatchListener into(BlockingQueue<StoreEvent> queue) {
    return new WatchListener() {
      @Override
      public void onEvent(StoreEvent event) {
        queue.add(event);
      }

      @Override
      public void onCompacted(long compactedRevision) {
        throw new AssertionError("compacted");
      }
    };
  }
}
