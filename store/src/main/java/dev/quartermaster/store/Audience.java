package dev.quartermaster.store;

import java.util.Set;

/**
 * Which routed watches ({@link Store#watch(String, String, long, WatchListener)}) must hear of a
 * change: every one, or those of the named routes. The store never looks into values, so the writer
 * says it: it knows the value before the change and after it, and a change concerns the routes of
 * both (an object leaving a route is news to that route). A write that does not say concerns every
 * route, and so does every event replayed from the log.
 */
public sealed interface Audience {
  Audience EVERYONE = new Everyone();

  /** Whether a watch of {@code route} must hear of the change. */
  boolean includes(String route);

  /** A change that concerns the watches of exactly {@code routes} (none: only unrouted watches). */
  static Audience routes(Set<String> routes) {
    return new Routes(routes);
  }

  /** Every watch, routed or not. */
  record Everyone() implements Audience {
    @Override
    public boolean includes(String route) {
      return true;
    }
  }

  /** The watches of these routes, and the unrouted ones. */
  record Routes(Set<String> names) implements Audience {
    public Routes {
      names = Set.copyOf(names);
    }

    @Override
    public boolean includes(String route) {
      return names.contains(route);
    }
  }
}
