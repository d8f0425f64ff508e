package dev.quartermaster.store.registry;

import dev.quartermaster.api.client.NodeAudience;
import dev.quartermaster.api.client.WatchScope;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.store.Audience;
import java.util.HashSet;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The store routes ({@link Audience}) of a registry write: a node scope's watch is routed by the
 * node's name, and a change concerns the {@link NodeAudience} of the object it replaces and of the
 * one it leaves. Every registry write compares its key's revision, so the object it replaces is the
 * one the store holds when the write lands.
 */
final class WatchRoutes {
  private static final String NODE = "node/";

  private WatchRoutes() {}

  /** The store route a watch of {@code scope} hears; empty: every change. */
  static Optional<String> of(WatchScope scope) {
    return switch (scope) {
      case WatchScope.Cluster c -> Optional.empty();
      case WatchScope.Node n -> Optional.of(NODE + n.name());
    };
  }

  /**
   * Who must hear of {@code before} (absent: a create) becoming {@code after} (absent: a delete).
   */
  static Audience of(Optional<ApiObject> before, Optional<ApiObject> after) {
    var routes = new HashSet<String>(4);
    for (var object : Stream.concat(before.stream(), after.stream()).toList()) {
      switch (NodeAudience.of(object)) {
        case NodeAudience.AllNodes a -> {
          return Audience.EVERYONE;
        }
        case NodeAudience.Nodes n -> n.names().forEach(name -> routes.add(NODE + name));
      }
    }
    return Audience.routes(routes);
  }
}
