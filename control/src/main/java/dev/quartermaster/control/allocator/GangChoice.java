package dev.quartermaster.control.allocator;

import dev.quartermaster.api.device.DeviceClass;
import dev.quartermaster.api.gang.GangTopology;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A gang's placement decided over a snapshot of the fleet ({@link Fleet}): pure, no I/O, nothing
 * begun. In order: the gang fits the few nodes the index offers first (best fit's shortcut), or the
 * nodes no one is committing to — placed; it would fit only with nodes being committed to — it
 * waits for those commits; it would not fit even with every device free — it never fits as the
 * fleet is; else it is short, saying how many members would fit. The caller begins the commits of a
 * placement's nodes.
 */
final class GangChoice {
  private GangChoice() {}

  /**
   * The fleet as a decision sees it, each node with what it must keep off shown held. Each part is
   * asked for only when the decision gets that far, since the first parts are what most decisions
   * need.
   */
  interface Fleet {
    /**
     * The few nodes best fit's walk can reach, when the index can tell (see {@link
     * FitPolicy#picksAmongFewestFree}); empty: look at every node.
     */
    Optional<List<NodeView>> fewestThatHold();

    /** The schedulable nodes no placement is being committed to. */
    List<NodeView> free();

    /** The schedulable nodes a placement is being committed to. */
    List<NodeView> busy();

    /** Every known node as if empty, ready and healthy ({@link FleetCapacity#emptied}). */
    List<NodeView> emptied();
  }

  /** Where {@code members} go on {@code fleet}, all of them or none, and if none, why. */
  static GangPlacement of(
      Fleet fleet,
      List<GangFit.Member> members,
      Map<String, DeviceClass> classes,
      GangTopology topology,
      FitPolicy policy) {
    var few = fleet.fewestThatHold();
    if (few.isPresent()
        && GangFit.fit(few.get(), members, classes, topology, policy)
            instanceof GangFit.Outcome.Fits fits) {
      return new GangPlacement.Placed(fits.byMember());
    }
    var free = fleet.free();
    var outcome = GangFit.fit(free, members, classes, topology, policy);
    if (outcome instanceof GangFit.Outcome.Fits fits) {
      return new GangPlacement.Placed(fits.byMember());
    }
    var busy = fleet.busy();
    if (!busy.isEmpty()) {
      var all = new ArrayList<>(free);
      all.addAll(busy);
      if (GangFit.fit(all, members, classes, topology, policy) instanceof GangFit.Outcome.Fits) {
        return new GangPlacement.Busy(
            busy.stream().map(NodeView::name).collect(Collectors.toSet()));
      }
    }
    var never = FleetCapacity.neverFits(fleet.emptied(), members, classes, topology);
    if (never.isPresent()) {
      return new GangPlacement.NeverFits(never.get());
    }
    var s = (GangFit.Outcome.Short) outcome;
    return new GangPlacement.Short(s.most(), s.where());
  }
}
