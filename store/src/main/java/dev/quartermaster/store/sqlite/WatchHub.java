package dev.quartermaster.store.sqlite;

import dev.quartermaster.store.Audience;
import dev.quartermaster.store.StoreEvent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * Hands committed events to the live watches. The writer publishes each commit's events here, in
 * revision order, after COMMIT returned; a new watch registers under the same lock and learns the
 * last published revision, so it replays history up to exactly that revision and receives every
 * later event live: no gap, no duplicate.
 *
 * <p>A routed watch is offered only the events whose {@link Audience} includes its route: a
 * thousand node agents watching the tasks are not each woken (a queue, a lock, a thread) by every
 * task of the cluster, only by their own node's.
 */
final class WatchHub {
  private final Path file;
  private final ReentrantLock lock = new ReentrantLock();

  /**
   * The watches by prefix (guarded by lock): a commit's events are matched once per prefix, not
   * once per watch (a node agent's informers are hundreds of watches of the same few prefixes).
   */
  private final Map<String, PrefixWatches> watches = new LinkedHashMap<>();

  private long published; // guarded by lock
  private boolean closed; // guarded by lock

  /** The watches of one prefix: those that hear everything, and the routed ones by route. */
  private static final class PrefixWatches {
    final List<SqliteWatch> unrouted = new ArrayList<>();
    final Map<String, List<SqliteWatch>> routed = new HashMap<>();

    List<SqliteWatch> listOf(SqliteWatch watch) {
      return watch
          .route()
          .map(r -> routed.computeIfAbsent(r, x -> new ArrayList<>()))
          .orElse(unrouted);
    }

    boolean remove(SqliteWatch watch) {
      if (watch.route().isEmpty()) {
        return unrouted.remove(watch);
      }
      var route = watch.route().get();
      var same = routed.get(route);
      if (same == null || !same.remove(watch)) {
        return false;
      }
      if (same.isEmpty()) {
        routed.remove(route);
      }
      return true;
    }

    boolean isEmpty() {
      return unrouted.isEmpty() && routed.isEmpty();
    }

    Stream<SqliteWatch> all() {
      return Stream.concat(unrouted.stream(), routed.values().stream().flatMap(List::stream));
    }
  }

  WatchHub(Path file, long revision) {
    this.file = file;
    this.published = revision;
  }

  /**
   * Adds a watch; from now on it is offered every published event (of its route, if it has one).
   *
   * @return the last published revision; everything at or below it is in the log already
   */
  long register(SqliteWatch watch) {
    lock.lock();
    try {
      if (closed) {
        throw Errors.closed(file);
      }
      watches.computeIfAbsent(watch.prefix(), p -> new PrefixWatches()).listOf(watch).add(watch);
      return published;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Offers one commit's events, in order, to every watch they concern; a watch that cannot keep up
   * is ended.
   */
  void publish(List<StoreEvent> events, long revision) {
    lock.lock();
    try {
      for (var prefixed = watches.entrySet().iterator(); prefixed.hasNext(); ) {
        var entry = prefixed.next();
        var matching =
            events.stream().filter(e -> e.kv().key().startsWith(entry.getKey())).toList();
        if (matching.isEmpty()) {
          continue;
        }
        var group = entry.getValue();
        offer(group.unrouted, matching);
        if (!group.routed.isEmpty()) {
          byRoute(group, matching)
              .forEach(
                  (route, routedEvents) -> {
                    var same = group.routed.get(route);
                    offer(same, routedEvents);
                    if (same.isEmpty()) {
                      group.routed.remove(route);
                    }
                  });
        }
        if (group.isEmpty()) {
          prefixed.remove();
        }
      }
      published = revision;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The events each route of {@code group} must hear, in order; a route that hears none is absent.
   */
  private static Map<String, List<StoreEvent>> byRoute(
      PrefixWatches group, List<StoreEvent> events) {
    var out = new HashMap<String, List<StoreEvent>>();
    for (var event : events) {
      switch (event.audience()) {
        case Audience.Everyone e ->
            group
                .routed
                .keySet()
                .forEach(r -> out.computeIfAbsent(r, x -> new ArrayList<>()).add(event));
        case Audience.Routes r -> {
          for (var name : r.names()) {
            if (group.routed.containsKey(name)) {
              out.computeIfAbsent(name, x -> new ArrayList<>()).add(event);
            }
          }
        }
      }
    }
    return out;
  }

  private static void offer(List<SqliteWatch> same, List<StoreEvent> events) {
    for (Iterator<SqliteWatch> it = same.iterator(); it.hasNext(); ) {
      SqliteWatch watch = it.next();
      if (!watch.offer(events)) {
        // Never block the writer on a slow watcher: end it; its client watches again.
        watch.end(
            new SqliteWatch.State.Closed(
                "watcher fell behind: more than "
                    + watch.capacity()
                    + " undelivered events; watch again from the last revision seen"));
        it.remove();
      }
    }
  }

  void remove(SqliteWatch watch) {
    lock.lock();
    try {
      var same = watches.get(watch.prefix());
      if (same != null && same.remove(watch) && same.isEmpty()) {
        watches.remove(watch.prefix());
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Ends every watch with {@code reason}. With {@code refuseNew}, the store is closing and no watch
   * may register afterwards; otherwise (a write whose outcome is unknown) the hub moves on to
   * {@code revision} and watches started later replay from the log.
   */
  void endAll(String reason, boolean refuseNew, long revision) {
    List<SqliteWatch> ended;
    lock.lock();
    try {
      closed |= refuseNew;
      published = Math.max(published, revision);
      ended = watches.values().stream().flatMap(PrefixWatches::all).toList();
      watches.clear();
    } finally {
      lock.unlock();
    }
    for (SqliteWatch watch : ended) {
      watch.end(new SqliteWatch.State.Closed(reason));
    }
  }
}
