package dev.quartermaster.api.gang;

import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.WorkloadSpec;
import dev.quartermaster.api.workload.WorkloadStatus;
import dev.quartermaster.api.workload.WorkloadStatus.GroupStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one reading of a workload's gangs, for everyone who acts on them or shows them (allocator,
 * workload controller, CLI, metrics, simulation): no one reads a group's {@code gang} on their own.
 *
 * <ul>
 *   <li>With {@code spec.gang}, the workload has one gang, {@link Gang#WHOLE_WORKLOAD}, over every
 *       group: each group's share is its own {@code gang.minMember}, default all its replicas; the
 *       failure policy and topology are the workload gang's.
 *   <li>Without, each group with a {@code gang} is a gang of its own, named after the group.
 * </ul>
 *
 * A gang's status is where its name says: the workload gang's in {@code status.gang}, a group's in
 * that group's line.
 */
public final class WorkloadGangs {
  private WorkloadGangs() {}

  /** The workload's gangs, in spec order. */
  public static List<Gang> of(WorkloadSpec spec) {
    if (spec.gang().isPresent()) {
      var whole = spec.gang().get();
      var shares =
          spec.groups().stream()
              .map(
                  g ->
                      new Gang.Share(
                          g.name(),
                          g.gang().map(x -> x.minMemberOf(g.replicas())).orElse(g.replicas())))
              .toList();
      return List.of(
          new Gang(Gang.WHOLE_WORKLOAD, shares, whole.failurePolicy(), whole.placement()));
    }
    var out = new ArrayList<Gang>();
    for (var g : spec.groups()) {
      g.gang().ifPresent(x -> out.add(groupGang(g, x)));
    }
    return List.copyOf(out);
  }

  private static Gang groupGang(WorkerGroup g, GangSpec spec) {
    return new Gang(
        g.name(),
        List.of(new Gang.Share(g.name(), spec.minMemberOf(g.replicas()))),
        spec.failurePolicy(),
        spec.placement());
  }

  /** The gang group {@code group} belongs to, if any. */
  public static Optional<Gang> ofGroup(WorkloadSpec spec, String group) {
    return of(spec).stream().filter(g -> g.has(group)).findFirst();
  }

  /** The gang named {@code name} ({@link Gang#name}), if the spec has it. */
  public static Optional<Gang> named(WorkloadSpec spec, String name) {
    return of(spec).stream().filter(g -> g.name().equals(name)).findFirst();
  }

  /**
   * Every gang line in {@code status}, by gang name: each group's that has one, and the workload
   * gang's under {@link Gang#WHOLE_WORKLOAD}.
   */
  public static Map<String, GangStatus> statuses(WorkloadStatus status) {
    var out = new LinkedHashMap<String, GangStatus>();
    for (GroupStatus g : status.groups()) {
      g.gang().ifPresent(s -> out.put(g.name(), s));
    }
    status.gang().ifPresent(s -> out.put(Gang.WHOLE_WORKLOAD, s));
    return out;
  }

  /** The status line of gang {@code name}, if {@code status} has one. */
  public static Optional<GangStatus> statusOf(WorkloadStatus status, String name) {
    return Optional.ofNullable(statuses(status).get(name));
  }
}
