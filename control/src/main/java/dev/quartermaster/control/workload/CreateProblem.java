package dev.quartermaster.control.workload;

import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.workload.WorkloadConditions;
import dev.quartermaster.control.cluster.Conditions;
import java.util.List;

/**
 * Why a wanted task or its volume was not created: its name is held by an object the workload does
 * not own, or the store refused it. The kind decides the {@code TasksCreated} reason; the message
 * tells the operator what to do.
 */
record CreateProblem(boolean nameTaken, String message) {
  private static CreateProblem nameTaken(String message) {
    return new CreateProblem(true, message);
  }

  /** Task {@code task} of {@code group} is held by {@code holder}. */
  static CreateProblem taskTaken(String group, String task, String holder) {
    return taken("task", group, task, holder);
  }

  /** Slot volume {@code volume} of {@code group} is held by {@code holder}. */
  static CreateProblem volumeTaken(String group, String volume, String holder) {
    return taken("volume", group, volume, holder);
  }

  private static CreateProblem taken(String kind, String group, String name, String holder) {
    return nameTaken(
        kind
            + " "
            + name
            + " (group "
            + group
            + ") is taken by "
            + holder
            + "; its slot stays empty until that "
            + kind
            + " is gone (rename the workload or group, or delete the "
            + kind
            + ")");
  }

  static CreateProblem invalid(String message) {
    return new CreateProblem(false, message);
  }

  /** The workload's {@code TasksCreated} condition, given what this pass could not create. */
  static Condition condition(List<CreateProblem> problems) {
    return problems.isEmpty()
        ? Conditions.of(
            WorkloadConditions.TASKS_CREATED,
            true,
            WorkloadConditions.CREATED,
            "every wanted task exists or is being replaced")
        : Conditions.of(
            WorkloadConditions.TASKS_CREATED,
            false,
            reasonOf(problems),
            String.join(
                "; ", problems.stream().map(CreateProblem::message).distinct().sorted().toList()));
  }

  /**
   * {@code NameTaken} only when every problem is a taken name; any refusal makes it {@code
   * Invalid}.
   */
  static String reasonOf(List<CreateProblem> problems) {
    return problems.stream().allMatch(CreateProblem::nameTaken)
        ? WorkloadConditions.NAME_TAKEN
        : WorkloadConditions.INVALID;
  }
}
