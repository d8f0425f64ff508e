package dev.quartermaster.api.workload;

import dev.quartermaster.api.gang.GangStatus;
import dev.quartermaster.api.meta.Condition;
import java.util.List;
import java.util.Optional;

/**
 * @param observedGeneration the spec generation the controller last acted on
 * @param gang the workload's own gang ({@code spec.gang}), if it has one; a group's gang is in the
 *     group's line
 */
public record WorkloadStatus(
    long observedGeneration,
    List<GroupStatus> groups,
    List<Condition> conditions,
    Optional<GangStatus> gang) {
  public static final WorkloadStatus EMPTY = new WorkloadStatus(0, List.of(), List.of());

  public WorkloadStatus {
    groups = groups == null ? List.of() : List.copyOf(groups);
    conditions = conditions == null ? List.of() : List.copyOf(conditions);
    gang = gang == null ? Optional.empty() : gang;
  }

  public WorkloadStatus(
      long observedGeneration, List<GroupStatus> groups, List<Condition> conditions) {
    this(observedGeneration, groups, conditions, Optional.empty());
  }

  /**
   * @param live tasks that exist and are not finished; never more than replicas
   * @param placed live tasks bound to a node (Scheduled, Preparing or Running): what {@code get
   *     workloads} shows over the replicas
   * @param gang the group's gang, if it is one
   */
  public record GroupStatus(
      String name,
      int replicas,
      int live,
      int running,
      int succeeded,
      int failed,
      int placed,
      Optional<GangStatus> gang) {
    public GroupStatus {
      name = name == null ? "" : name;
      gang = gang == null ? Optional.empty() : gang;
    }

    public GroupStatus(
        String name, int replicas, int live, int running, int succeeded, int failed) {
      this(name, replicas, live, running, succeeded, failed, 0, Optional.empty());
    }

    /** These counts with {@code next} as the gang's line. */
    public GroupStatus withGang(Optional<GangStatus> next) {
      return new GroupStatus(name, replicas, live, running, succeeded, failed, placed, next);
    }
  }
}
