package dev.quartermaster.control.allocator;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.SortedMap;
import java.util.function.ToIntFunction;

/**
 * Each member to the node with the fewest free devices that still holds it, so whole free nodes
 * stay whole for the next large gang rather than being nibbled (first fit and spreading both strand
 * a few free GPUs on many nodes). A preferred key's values are filled fullest first, so members
 * fill one rack before starting the next: the fewest racks the gang can fit in, greedily. Of the
 * domains that hold the gang, the one with the fewest free devices is taken (best fit one level
 * up); ties go by name.
 */
record BestFit() implements FitPolicy {
  @Override
  public List<List<NodeView>> fillOrder(
      SortedMap<String, List<NodeView>> byValue, ToIntFunction<NodeView> free) {
    return byValue.entrySet().stream()
        .sorted(
            Comparator.comparingInt(
                    (Map.Entry<String, List<NodeView>> e) ->
                        -e.getValue().stream().mapToInt(free).sum())
                .thenComparing(Map.Entry::getKey))
        .map(Map.Entry::getValue)
        .toList();
  }

  @Override
  public Comparator<NodeFree> nodeOrder() {
    return NodeFree.FEWEST_FREE_FIRST;
  }

  @Override
  public Iterable<NodeFree> tries(NavigableSet<NodeFree> nodes, int needed) {
    return nodes.tailSet(NodeFree.atLeast(needed), true);
  }

  @Override
  public boolean prefers(int free, int taken) {
    return free < taken;
  }

  @Override
  public boolean picksAmongFewestFree() {
    return true;
  }
}
