package dev.quartermaster.core.informer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.TreeMap;

/**
 * A source of truth driven by the test: writes bump a global revision and go to the current watch
 * at once, unless the test says to drop them; history can be compacted away.
 */
final class FakeSource implements ListerWatcher<FakeSource.Item> {

  /** A stored object. */
  record Item(String name, String node, String value, long revision) {}

  private final TreeMap<String, Item> truth = new TreeMap<>();
  private final List<WatchEvent<Item>> history = new ArrayList<>();
  private final Queue<Exception> listFailures = new ArrayDeque<>();
  private long revision;
  private long compactedThrough;
  private boolean dropping;
  private Optional<Long> staleListRevision = Optional.empty();
  private Optional<WatchSink<Item>> sink = Optional.empty();
  int lists;
  int watches;
  long lastWatchFrom = -1;

  Item put(String name, String node, String value) {
    Item item = new Item(name, node, value, ++revision);
    Item old = truth.put(name, item);
    emit(
        old == null
            ? new WatchEvent.Added<>(item, revision)
            : new WatchEvent.Modified<>(item, revision));
    return item;
  }

  void delete(String name) {
    Item old = truth.remove(name);
    emit(new WatchEvent.Deleted<>(old, ++revision));
  }

  /** Writes from now on are not delivered (a lagging watch). */
  void dropEvents() {
    dropping = true;
  }

  /** Writes from now on are delivered again (what was dropped stays dropped). */
  void deliverEvents() {
    dropping = false;
  }

  /** Forgets all history so far and tells the current watch it fell behind. */
  void compact() {
    compactedThrough = revision;
    dropping = false;
    WatchSink<Item> s = sink.orElseThrow();
    sink = Optional.empty();
    s.compacted();
  }

  /** Ends the current watch. */
  void close(String reason) {
    WatchSink<Item> s = sink.orElseThrow();
    sink = Optional.empty();
    s.closed(reason);
  }

  /** Sends an event again, straight to the current watch. */
  void redeliver(WatchEvent<Item> event) {
    sink.orElseThrow().event(event);
  }

  void bookmark() {
    sink.orElseThrow().bookmark(revision);
  }

  void failNextList(Exception e) {
    listFailures.add(e);
  }

  /** The next list answers as of {@code revision} (a lagging replica). */
  void listStaleOnceAt(long revision) {
    staleListRevision = Optional.of(revision);
  }

  List<Item> items() {
    return List.copyOf(truth.values());
  }

  long revision() {
    return revision;
  }

  List<WatchEvent<Item>> history() {
    return List.copyOf(history);
  }

  boolean watching() {
    return sink.isPresent();
  }

  /** The sink of the current watch, to test what a cancelled watch's late callbacks do. */
  WatchSink<Item> currentSink() {
    return sink.orElseThrow();
  }

  @Override
  public Listing<Item> list() throws Exception {
    lists++;
    Exception failure = listFailures.poll();
    if (failure != null) {
      throw failure;
    }
    if (staleListRevision.isPresent()) {
      long at = staleListRevision.get();
      staleListRevision = Optional.empty();
      return new Listing<>(truth.values().stream().filter(i -> i.revision() <= at).toList(), at);
    }
    return new Listing<>(List.copyOf(truth.values()), revision);
  }

  @Override
  public Subscription watch(long afterRevision, WatchSink<Item> newSink) {
    watches++;
    lastWatchFrom = afterRevision;
    if (afterRevision < compactedThrough) {
      newSink.compacted();
      return () -> {};
    }
    sink = Optional.of(newSink);
    for (WatchEvent<Item> e : history) {
      if (e.revision() > afterRevision) {
        newSink.event(e);
      }
    }
    return () -> {
      if (sink.isPresent() && sink.get() == newSink) {
        sink = Optional.empty();
      }
    };
  }

  private void emit(WatchEvent<Item> event) {
    history.add(event);
    if (!dropping) {
      sink.ifPresent(s -> s.event(event));
    }
  }
}
