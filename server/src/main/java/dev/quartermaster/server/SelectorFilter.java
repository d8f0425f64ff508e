package dev.quartermaster.server;

import dev.quartermaster.api.client.LabelSelector;
import dev.quartermaster.api.client.WatchEvent;
import dev.quartermaster.api.client.WatchEvent.Type;
import dev.quartermaster.api.meta.ApiObject;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Narrows one watch's events to a label selector the way a cache needs them: an object that stops
 * matching arrives as {@code DELETED} (else the watcher's cache keeps it forever), one that starts
 * matching as {@code ADDED}. The watch does not know what matched at its start revision, so an
 * unknown object that does not match is reported deleted once; a cache that never had it ignores
 * it.
 */
final class SelectorFilter {
  private final LabelSelector selector;

  /** Name -> whether its last event matched; only names this watch has seen. */
  private final Map<String, Boolean> matched = new HashMap<>();

  SelectorFilter(LabelSelector selector) {
    this.selector = selector;
  }

  <T extends ApiObject> Optional<WatchEvent<T>> apply(WatchEvent<T> event) {
    if (selector.isEmpty()) {
      return Optional.of(event);
    }
    var name = event.object().metadata().name();
    var matches = selector.matches(event.object().metadata().labels());
    var before =
        Optional.ofNullable(
            event.type() == Type.DELETED ? matched.remove(name) : matched.put(name, matches));
    if (matches) {
      var startsMatching = before.filter(b -> !b).isPresent() && event.type() == Type.MODIFIED;
      return Optional.of(startsMatching ? new WatchEvent<>(Type.ADDED, event.object()) : event);
    }
    var mayBeCached = before.orElse(event.type() != Type.ADDED);
    return mayBeCached
        ? Optional.of(new WatchEvent<>(Type.DELETED, event.object()))
        : Optional.empty();
  }
}
