package dev.quartermaster.control.workload;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.gang.Gang;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.WorkloadSpec;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * A gang as the caches show it: what {@link GangStatuses} and {@link PartlyPlaced} judge.
 *
 * @param gang the gang, as {@link dev.quartermaster.api.gang.WorkloadGangs} reads it from {@code
 *     spec}
 * @param workloadUid its workload's uid: only that workload's tasks count
 * @param tasks per group of the gang, its tasks (any owner)
 * @param claims the claims of the gang's groups (only those of live members count)
 * @param admitted a group's admitted replicas (a scale-up not yet admitted is not needed)
 * @param boundInNameOnly whether a member bound to a node with a live claim of its own that no node
 *     holds counts as not placed: its claim was made again under it and can go only to that node
 *     ({@link PartialGangs}, which acts only once the gang has been so for its bound, when the
 *     caches have caught up); not for the status line, which a claims cache a moment behind the
 *     tasks' (the pin and the allocation are one write) would flip
 */
record GangView(
    Gang gang,
    WorkloadSpec spec,
    String workloadUid,
    Map<String, List<Task>> tasks,
    List<ResourceClaim> claims,
    ToIntFunction<String> admitted,
    boolean boundInNameOnly) {
  /** A view that counts every bound member as placed. */
  GangView(
      Gang gang,
      WorkloadSpec spec,
      String workloadUid,
      Map<String, List<Task>> tasks,
      List<ResourceClaim> claims,
      ToIntFunction<String> admitted) {
    this(gang, spec, workloadUid, tasks, claims, admitted, false);
  }
}
