package dev.quartermaster.store.sqlite;

import dev.quartermaster.store.StoreEvent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Hands committed events to the live watches. The writer publishes each commit's events here, in
 * revision order, after COMMIT returned; a new watch registers under the same lock and learns the
 * last published revision, so it replays history up to exactly that revision and receives every
 * later event live: no gap, no duplicate.
 */
final class WatchHub {
  private final Path file;
  private final ReentrantLock lock = new ReentrantLock();
  /**
   * The watches by prefix (guarded by lock): a commit's events are matched once per prefix, not
   * once per watch (a node agent's informers are hundreds of watches of the same few prefixes).
   */
  private final Map<String, List<SqliteWatch>> watches = new LinkedHashMap<>();
  private long published; // guarded by lock
  private boolean closed; // guarded by lock

  WatchHub(Path file, long revision) {
    this.file = file;
    this.published = revision;
  }

  /**
   * Adds a watch; from now on it is offered every published event.
   *
   * @return the last published revision; everything at or below it is in the log already
   */
  long register(SqliteWatch watch) {
    lock.lock();
    try {
      if (closed) {
        throw Errors.closed(file);
      }
      watches.computeIfAbsent(watch.prefix(), p -> new ArrayList<>()).add(watch);
      return published;
    } finally {
      lock.unlock();
    }
  }

  /** Offers one commit's events, in order, to every watch; a watch that cannot keep up is ended. */
  void publish(List<StoreEvent> events, long revision) {
    lock.lock();
    try {
      for (var prefixed = watches.entrySet().iterator(); prefixed.hasNext(); ) {
        var entry = prefixed.next();
        var matching = events.stream().filter(e -> e.kv().key().startsWith(entry.getKey())).toList();
        if (matching.isEmpty()) {
          continue;
        }
        for (Iterator<SqliteWatch> it = entry.getValue().iterator(); it.hasNext(); ) {
          SqliteWatch watch = it.next();
          if (!watch.offer(matching)) {
            // Never block the writer on a slow watcher: end it; its client watches again.
            watch.end(new SqliteWatch.State.Closed("watcher fell behind: more than " + watch.capacity()
                + " undelivered events; watch again from the last revision seen"));
            it.remove();
          }
        }
        if (entry.getValue().isEmpty()) {
          prefixed.remove();
        }
      }
      published = revision;
    } finally {
      lock.unlock();
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
   * Ends every watch with {@code reason}. With {@code refuseNew}, the store is closing and no
   * watch may register afterwards; otherwise (a write whose outcome is unknown) the hub moves on
   * to {@code revision} and watches started later replay from the log.
   */
  void endAll(String reason, boolean refuseNew, long revision) {
    List<SqliteWatch> ended;
    lock.lock();
    try {
      closed |= refuseNew;
      published = Math.max(published, revision);
      ended = watches.values().stream().flatMap(List::stream).toList();
      watches.clear();
    } finally {
      lock.unlock();
    }
    for (SqliteWatch watch : ended) {
      watch.end(new SqliteWatch.State.Closed(reason));
    }
  }
}
