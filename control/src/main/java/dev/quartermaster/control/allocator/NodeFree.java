package dev.quartermaster.control.allocator;

import java.util.Comparator;

/** A node and how many free devices of a base class it has: what placements walk nodes by. */
record NodeFree(int free, String node) {
  /** Fewest free first, then by name: best fit's walk, and the index's order. */
  static final Comparator<NodeFree> FEWEST_FREE_FIRST =
      Comparator.comparingInt(NodeFree::free).thenComparing(NodeFree::node);

  /** By name only: first fit's walk. */
  static final Comparator<NodeFree> BY_NAME = Comparator.comparing(NodeFree::node);

  /** The first of {@link #FEWEST_FREE_FIRST} with at least {@code free}. */
  static NodeFree atLeast(int free) {
    return new NodeFree(free, "");
  }
}
