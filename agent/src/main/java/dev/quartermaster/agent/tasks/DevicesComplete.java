package dev.quartermaster.agent.tasks;

import dev.quartermaster.agent.discovery.NodeProblem;
import dev.quartermaster.api.meta.Condition;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A running task's {@code DevicesComplete} condition (I2 for its whole life): whether every device
 * node it was given is still right on its node. Pure: from what its device check opened and the
 * node's problems as last checked (control nodes, and the nodes of the GPUs held here).
 *
 * <p>A problem concerns the task when its device check opened the problem's path: the host path
 * (the exec runtime opens those) or the path inside a container ({@code /dev/<name>}, podman's).
 */
public final class DevicesComplete {
  public static final String TYPE = "DevicesComplete";
  public static final String MISSING = "DeviceNodeMissing";

  private DevicesComplete() {}

  /**
   * The problems among {@code problems} that concern a task whose device check opened {@code
   * opened}.
   */
  public static List<NodeProblem> affecting(List<String> opened, List<NodeProblem> problems) {
    return problems.stream()
        .filter(
            p ->
                opened.contains(p.path().toString())
                    || opened.contains("/dev/" + p.path().getFileName()))
        .toList();
  }

  /**
   * {@code False/DeviceNodeMissing} naming every affected path (e.g. {@code missing
   * /dev/nvidia-uvm}), else {@code True/AllDeviceNodesPresent}.
   */
  public static Condition of(List<String> opened, List<NodeProblem> problems) {
    var affecting = affecting(opened, problems);
    if (affecting.isEmpty()) {
      return new Condition(
          TYPE,
          Condition.Status.True,
          "AllDeviceNodesPresent",
          opened.isEmpty()
              ? "the task was given no device nodes"
              : "all " + opened.size() + " device nodes the task was given are present",
          Optional.empty());
    }
    return new Condition(
        TYPE,
        Condition.Status.False,
        MISSING,
        affecting.stream().map(NodeProblem::message).collect(Collectors.joining("; ")),
        Optional.empty());
  }
}
