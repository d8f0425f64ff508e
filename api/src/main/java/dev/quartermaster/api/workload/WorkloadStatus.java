package dev.quartermaster.api.workload;

import dev.quartermaster.api.meta.Condition;
import java.util.List;

/**
 * @param observedGeneration the spec generation the controller last acted on
 */
public record WorkloadStatus(
    long observedGeneration, List<GroupStatus> groups, List<Condition> conditions) {
  public static final WorkloadStatus EMPTY = new WorkloadStatus(0, List.of(), List.of());

  public WorkloadStatus {
    groups = groups == null ? List.of() : List.copyOf(groups);
    conditions = conditions == null ? List.of() : List.copyOf(conditions);
  }

  /**
   * @param live tasks that exist and are not finished; never more than replicas
   */
  public record GroupStatus(
      String name, int replicas, int live, int running, int succeeded, int failed) {
    public GroupStatus {
      name = name == null ? "" : name;
    }
  }
}
