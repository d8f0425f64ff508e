package dev.quartermaster.control.allocator;

import java.util.Comparator;
import java.util.List;
import java.util.NavigableSet;
import java.util.SortedMap;
import java.util.function.ToIntFunction;

/**
 * Each member to the first node by name that holds it, a preferred key's values in label order, and
 * the first domain by label value that holds the gang: here only so that {@code qm bench gangs} can
 * measure, on the same control plane, how many GPUs it strands beside {@link BestFit} (issue 32).
 */
record FirstFit() implements FitPolicy {
  @Override
  public List<List<NodeView>> fillOrder(
      SortedMap<String, List<NodeView>> byValue, ToIntFunction<NodeView> free) {
    return List.copyOf(byValue.values());
  }

  @Override
  public Comparator<NodeFree> nodeOrder() {
    return NodeFree.BY_NAME;
  }

  @Override
  public Iterable<NodeFree> tries(NavigableSet<NodeFree> nodes, int needed) {
    return nodes;
  }

  @Override
  public boolean prefers(int free, int taken) {
    return taken == Integer.MAX_VALUE;
  }

  @Override
  public boolean picksAmongFewestFree() {
    return false;
  }
}
