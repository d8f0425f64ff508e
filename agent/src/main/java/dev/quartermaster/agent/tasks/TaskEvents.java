package dev.quartermaster.agent.tasks;

import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskStatus;
import java.util.regex.Pattern;

/**
 * The events of a task's life on its node, read off each status the agent wrote: started (with the
 * device nodes its check opened), ended, and device nodes lost or back while it runs. Routine steps
 * in between (preparing, waiting for a claim) are in the status already and not repeated.
 */
final class TaskEvents {
  private static final Pattern REASON = Pattern.compile("[A-Z][A-Za-z0-9]{0,63}");

  private TaskEvents() {}

  static void written(EventRecorder events, Task t, TaskStatus was, TaskStatus now) {
    if (now.phase() != was.phase()) {
      switch (now.phase()) {
        case Running -> events.normal(t, "Started", now.message());
        case Succeeded -> events.normal(t, "Completed", now.message());
        case Failed -> events.warning(t, reasonOr(now.reason(), "Failed"), now.message());
        default -> {}
      }
    }
    var devicesWas = Condition.find(was.conditions(), DevicesComplete.TYPE);
    var devicesNow = Condition.find(now.conditions(), DevicesComplete.TYPE);
    if (devicesNow.isPresent()
        && !devicesNow.map(Condition::status).equals(devicesWas.map(Condition::status))
        && (devicesWas.isPresent() || !devicesNow.get().isTrue())) {
      var c = devicesNow.get();
      if (c.isTrue()) {
        events.normal(t, "DevicesComplete", c.message());
      } else {
        events.warning(t, reasonOr(c.reason(), "DeviceNodeMissing"), c.message());
      }
    }
  }

  private static String reasonOr(String reason, String fallback) {
    return REASON.matcher(reason).matches() ? reason : fallback;
  }
}
