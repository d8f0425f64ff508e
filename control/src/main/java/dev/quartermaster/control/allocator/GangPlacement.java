package dev.quartermaster.control.allocator;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** The outcome of looking for nodes for all of a gang's members at once. */
sealed interface GangPlacement {

  /** Every member fits: per task, its node and devices. Its nodes are committing until it ends. */
  record Placed(Map<String, Placement.Placed> byMember) implements GangPlacement {
    public Placed {
      byMember = Map.copyOf(byMember);
    }

    Set<String> nodes() {
      return byMember.values().stream()
          .map(Placement.Placed::node)
          .collect(java.util.stream.Collectors.toSet());
    }
  }

  /** A request names a device class that does not exist. */
  record NoSuchDeviceClass(String message) implements GangPlacement {}

  /**
   * The gang would fit only with nodes to which other placements are being committed: it waits for
   * those commits.
   */
  record Busy(Set<String> nodes) implements GangPlacement {
    public Busy {
      nodes = Set.copyOf(nodes);
    }
  }

  /**
   * Not every member fits now: at most {@code most} would, in {@code where} (a value of the
   * required topology key; empty: there is none).
   */
  record Short(int most, Optional<String> where) implements GangPlacement {}

  /**
   * Not every member would fit even on an empty fleet ({@link FleetCapacity}): {@code why} names
   * the constraint and what the largest candidate offers.
   */
  record NeverFits(String why) implements GangPlacement {}
}
