package dev.quartermaster.control.allocator;

import java.util.Comparator;
import java.util.List;
import java.util.NavigableSet;
import java.util.SortedMap;
import java.util.function.ToIntFunction;

/**
 * How a gang is packed onto nodes ({@link GangFit}): the order members fill a preferred key's
 * values and a value's nodes, and which domain of a required key is taken. {@link GangFit} does the
 * rest (domains, device fit, counting); a new packing is a new implementation, chosen where {@link
 * Packing} is (the allocator's constructor). Pure; "free" is always free devices of the gang's base
 * class.
 */
sealed interface FitPolicy permits BestFit, FirstFit {
  /** The allocator's packing. */
  FitPolicy BEST_FIT = new BestFit();

  /** Only for the bench's comparison. */
  FitPolicy FIRST_FIT = new FirstFit();

  /**
   * The groups of nodes a domain splits into by a preferred key's value ({@code byValue}, in label
   * order; one group when there is no such key), in the order members fill them.
   */
  List<List<NodeView>> fillOrder(
      SortedMap<String, List<NodeView>> byValue, ToIntFunction<NodeView> free);

  /** The order a member tries a group's nodes in. */
  Comparator<NodeFree> nodeOrder();

  /**
   * The nodes of {@code nodes} (sorted by {@link #nodeOrder}) a member needing {@code needed}
   * tries, in order; any with fewer free the caller passes over anyway.
   */
  Iterable<NodeFree> tries(NavigableSet<NodeFree> nodes, int needed);

  /**
   * Whether a domain that holds the whole gang with {@code free} free devices is taken over the one
   * taken so far, with {@code taken} ({@link Integer#MAX_VALUE}: none yet).
   */
  boolean prefers(int free, int taken);

  /**
   * Whether the index may offer it only the fewest nodes that would hold the gang, fewest free
   * first ({@code DeviceIndex}): true only of a policy that would pick among those anyway whenever
   * they hold it, with no topology key.
   */
  boolean picksAmongFewestFree();
}
