package dev.quartermaster.api.client;

/**
 * Which changes of a kind a watch asks for ({@link ApiClient#watch(dev.quartermaster.api.meta.Kind,
 * long, WatchScope, WatchHandler)}).
 */
public sealed interface WatchScope {
  WatchScope CLUSTER = new Cluster();

  /** A node agent's scope: see {@link Node}. */
  static WatchScope node(String name) {
    return new Node(name);
  }

  /** Every change of the kind. */
  record Cluster() implements WatchScope {}

  /**
   * At least every change to an object that concerns node {@code name} before or after the change
   * ({@link NodeAudience}): an object leaving the node is told, then nothing more of it. Other
   * changes may be told too (a replayed history, a server that does not route); a watcher filters
   * by its own rule as well. Nothing says how far the cluster moved on meanwhile.
   */
  record Node(String name) implements WatchScope {
    public Node {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("a node scope needs a node name");
      }
    }
  }
}
