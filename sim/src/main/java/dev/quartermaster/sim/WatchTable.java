package dev.quartermaster.sim;

import dev.quartermaster.store.Audience;
import dev.quartermaster.store.StoreEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The open watches of a {@link SimStore}, by prefix and then by route, as the SQLite store's hub
 * keeps them: a commit is matched once per prefix and reaches only the routes its audience names,
 * not every watch of the fleet (a node agent's routed watches are a few per node, so offering each
 * commit to every watch made each step cost more the larger the fleet).
 *
 * <p>{@link #hearing} gives the watches in the order they were opened, as the store offered them
 * before: each offer draws its delivery delay from the env, so the order is part of a seed's run.
 *
 * @param <W> the store's watch
 */
final class WatchTable<W> {
  private record Entry<W>(long opened, W watch, String prefix, Optional<String> route) {}

  /** The watches of one prefix: those that hear everything, and the routed ones by route. */
  private static final class Group<W> {
    final Set<Entry<W>> unrouted = new LinkedHashSet<>();
    final Map<String, Set<Entry<W>>> routed = new HashMap<>();

    boolean isEmpty() {
      return unrouted.isEmpty() && routed.isEmpty();
    }
  }

  private final Map<String, Group<W>> byPrefix = new LinkedHashMap<>();
  private final Map<W, Entry<W>> entries = new LinkedHashMap<>();
  private long opened;

  synchronized void add(W watch, String prefix, Optional<String> route) {
    var e = new Entry<>(opened++, watch, prefix, route);
    entries.put(watch, e);
    var group = byPrefix.computeIfAbsent(prefix, p -> new Group<>());
    route
        .map(r -> group.routed.computeIfAbsent(r, x -> new LinkedHashSet<>()))
        .orElse(group.unrouted)
        .add(e);
  }

  synchronized void remove(W watch) {
    var e = entries.remove(watch);
    if (e == null) {
      return;
    }
    var group = byPrefix.get(e.prefix());
    if (e.route().isEmpty()) {
      group.unrouted.remove(e);
    } else {
      var same = group.routed.get(e.route().get());
      same.remove(e);
      if (same.isEmpty()) {
        group.routed.remove(e.route().get());
      }
    }
    if (group.isEmpty()) {
      byPrefix.remove(e.prefix());
    }
  }

  synchronized int size() {
    return entries.size();
  }

  /** Every open watch, in the order opened. */
  synchronized List<W> all() {
    return List.copyOf(entries.keySet());
  }

  /**
   * The watches that may hear one of {@code events} (its key under their prefix, and their route,
   * if any, in its audience), in the order opened; each still filters what it is offered.
   */
  synchronized List<W> hearing(List<StoreEvent> events) {
    var out = new TreeMap<Long, W>();
    byPrefix.forEach(
        (prefix, group) -> {
          for (var e : events) {
            if (!e.kv().key().startsWith(prefix)) {
              continue;
            }
            group.unrouted.forEach(w -> out.put(w.opened(), w.watch()));
            switch (e.audience()) {
              case Audience.Everyone everyone ->
                  group
                      .routed
                      .values()
                      .forEach(s -> s.forEach(w -> out.put(w.opened(), w.watch())));
              case Audience.Routes routes -> {
                for (var name : routes.names()) {
                  var same = group.routed.get(name);
                  if (same != null) {
                    same.forEach(w -> out.put(w.opened(), w.watch()));
                  }
                }
              }
            }
          }
        });
    return new ArrayList<>(out.values());
  }
}
