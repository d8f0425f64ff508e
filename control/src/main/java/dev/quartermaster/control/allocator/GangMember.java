package dev.quartermaster.control.allocator;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.control.cluster.Labels;
import java.util.List;

/**
 * A gang's live member as the caches show it: its claims (all of them exist, are its own and are
 * not being deleted; none listed while one is not), and those of its own claims that hold devices
 * (allocated or with record entries), a claim being deleted under its running process included: a
 * member that holds devices keeps its gang placed.
 */
record GangMember(Task task, List<ResourceClaim> claims, List<ResourceClaim> holding) {
  String group() {
    return task.metadata().labels().getOrDefault(Labels.GROUP, "");
  }

  String name() {
    return task.metadata().name();
  }

  boolean holds() {
    return !holding.isEmpty();
  }

  List<ResourceClaim> pending() {
    return claims.stream().filter(c -> c.status().allocation().isEmpty()).toList();
  }

  /** Its ordinal in its group; one without is placed last. */
  int ordinal() {
    try {
      return Integer.parseInt(task.metadata().labels().getOrDefault(Labels.ORDINAL, ""));
    } catch (NumberFormatException e) {
      return Integer.MAX_VALUE;
    }
  }
}
