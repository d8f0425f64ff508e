package dev.quartermaster.control.workload;

import dev.quartermaster.api.workload.WorkloadConditions;
import java.util.List;

/**
 * Why a wanted task or its volume was not created: its name is held by an object the workload does
 * not own, or the store refused it. The kind decides the {@code TasksCreated} reason; the message
 * tells the operator what to do.
 */
record CreateProblem(boolean nameTaken, String message) {
  static CreateProblem nameTaken(String message) {
    return new CreateProblem(true, message);
  }

  static CreateProblem invalid(String message) {
    return new CreateProblem(false, message);
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
