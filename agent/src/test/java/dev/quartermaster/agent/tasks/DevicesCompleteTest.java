package dev.quartermaster.agent.tasks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.discovery.NodeProblem;
import dev.quartermaster.api.meta.Condition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * The DevicesComplete rule over a table of tasks (exec: host paths; podman and noop: container
 * paths; a task without devices) and node problems, checked by one promise: a running task whose
 * device node is missing says so, naming the path, and says nothing false about the others. The
 * naive rule (no condition: what the agent wrote before, Running/DeviceCheckPassed for life) must
 * be caught; the real one must not.
 */
class DevicesCompleteTest {
  private static final Path UVM = Path.of("/sim/root/dev/nvidia-uvm");
  private static final Path GPU0 = Path.of("/sim/root/dev/nvidia0");
  private static final NodeProblem UVM_MISSING =
      new NodeProblem(UVM, NodeProblem.Kind.Missing, "missing " + UVM);
  private static final NodeProblem GPU0_MISSING =
      new NodeProblem(GPU0, NodeProblem.Kind.Missing, "missing " + GPU0);

  private static final List<List<String>> TASKS =
      List.of(
          List.of(
              "/sim/root/dev/nvidia0",
              "/sim/root/dev/nvidiactl",
              "/sim/root/dev/nvidia-uvm"), // exec
          List.of("/dev/nvidia1", "/dev/nvidiactl", "/dev/nvidia-uvm"), // podman, noop
          List.of()); // no GPU
  private static final List<List<NodeProblem>> PROBLEMS =
      List.of(
          List.of(),
          List.of(UVM_MISSING),
          List.of(GPU0_MISSING),
          List.of(UVM_MISSING, GPU0_MISSING));

  /** Before the fix: no condition at all. */
  private static Optional<Condition> naive(List<String> opened, List<NodeProblem> problems) {
    return Optional.empty();
  }

  private static Optional<Condition> real(List<String> opened, List<NodeProblem> problems) {
    return Optional.of(DevicesComplete.of(opened, problems));
  }

  private static List<String> violations(
      BiFunction<List<String>, List<NodeProblem>, Optional<Condition>> rule) {
    var out = new ArrayList<String>();
    for (var opened : TASKS) {
      for (var problems : PROBLEMS) {
        var condition = rule.apply(opened, problems);
        var lost =
            problems.stream()
                .filter(
                    p ->
                        opened.contains(p.path().toString())
                            || opened.contains("/dev/" + p.path().getFileName()))
                .toList();
        if (!lost.isEmpty()
            && condition
                .filter(
                    c ->
                        !c.isTrue()
                            && c.reason().equals("DeviceNodeMissing")
                            && lost.stream()
                                .allMatch(p -> c.message().contains(p.path().toString())))
                .isEmpty()) {
          out.add("task with " + opened + " not told of " + lost + ": " + condition);
        }
        if (lost.isEmpty() && condition.filter(c -> !c.isTrue()).isPresent()) {
          out.add("task with " + opened + " told of a loss that is not its own: " + condition);
        }
      }
    }
    return out;
  }

  @Test
  void theRealRuleTellsEveryTaskOfItsOwnLossesOnly() {
    assertThat(violations(DevicesCompleteTest::real)).isEmpty();
  }

  @Test
  void theNaiveRuleIsCaught() {
    assertThat(violations(DevicesCompleteTest::naive))
        .isNotEmpty()
        .anyMatch(v -> v.contains("nvidia-uvm"));
  }

  @Test
  void aPodmanTaskIsToldOfItsControlNodeButNotOfAnotherGpu() {
    var c = DevicesComplete.of(TASKS.get(1), List.of(UVM_MISSING, GPU0_MISSING));
    assertThat(c.message()).isEqualTo("missing " + UVM);
  }
}
