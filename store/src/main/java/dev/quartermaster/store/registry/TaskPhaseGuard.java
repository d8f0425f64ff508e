package dev.quartermaster.store.registry;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskTransitions;
import dev.quartermaster.store.Txn.Compare;
import java.util.List;

/**
 * The task's phase machine in the store, whoever writes (scheduler, agent, node lifecycle, an
 * operator with curl): a write may change a task's phase only by a move some writer of {@link
 * TaskTransitions} may make, so a finished task never runs again, and no task runs unscheduled or
 * goes back a phase. It judges the stored task against the written one; the write's own
 * compare-and-set on the task's revision makes the two one atomic step, so it reads nothing else.
 * Every write that can carry a status comes here (a status write, a write with its status, a
 * batch's); a plain update keeps the stored status. A task created again under its name (a new uid)
 * is a create, never judged: it starts over.
 */
final class TaskPhaseGuard implements WriteRules {

  @Override
  public List<Compare> beforeWrite(Reads reads, ApiObject current, ApiObject next) {
    if (current instanceof Task c && next instanceof Task n) {
      var from = c.status().phase();
      var to = n.status().phase();
      TaskTransitions.refusal(from, to)
          .ifPresent(
              rule -> {
                throw new ApiException(
                    Reason.Conflict,
                    "task "
                        + c.metadata().name()
                        + ": "
                        + from
                        + " → "
                        + to
                        + " refused: "
                        + rule.text());
              });
    }
    return List.of();
  }
}
