package dev.quartermaster.agent;

import static dev.quartermaster.agent.AgentFixture.claim;
import static dev.quartermaster.agent.AgentFixture.phaseIs;
import static dev.quartermaster.agent.AgentFixture.prepareIs;
import static dev.quartermaster.agent.AgentFixture.prepareState;
import static dev.quartermaster.agent.AgentFixture.task;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.discovery.ControlNode;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.workload.DeviceLossPolicy;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hole 6 (I2 "for its whole life") and hole 4b through the real agent on a simulated device root: a
 * running task is told, in its {@code DevicesComplete} condition, when its node loses a device node
 * it was given (a control node, or its GPU's own node) and when it is back; with {@code
 * onDeviceLoss: Stop} it is killed and ends Failed DeviceNodeMissing. A claim for a GPU whose node
 * is missing waits at prepare time, naming the path, instead of being prepared.
 */
class DeviceLossEndToEndTest {
  @TempDir Path tmp;
  private AgentFixture f;

  @BeforeEach
  void setUp() throws Exception {
    f = new AgentFixture(tmp);
  }

  @AfterEach
  void tearDown() throws Exception {
    f.close();
  }

  private static Predicate<Optional<Task>> devicesComplete(Condition.Status status) {
    return t ->
        t.flatMap(x -> Condition.find(x.status().conditions(), "DevicesComplete"))
            .filter(c -> c.status() == status)
            .isPresent();
  }

  private Task runningTaskOn(String gpu, String name, DeviceLossPolicy policy) throws Exception {
    f.api.create(claim(name + "-gpu", gpu));
    f.await(Kinds.RESOURCE_CLAIM, name + "-gpu", prepareIs(PrepareState.Phase.Prepared));
    f.api.create(task(name, List.of(name + "-gpu"), List.of("sleep", "600"), policy));
    return f.awaitTask(
        name, phaseIs(TaskPhase.Running).and(devicesComplete(Condition.Status.True)));
  }

  @Test
  void aRunningTaskIsToldWhenAControlNodeGoesAndComesBack() throws Exception {
    runningTaskOn("gpu-0", "task-a", DeviceLossPolicy.Continue);
    var uvm = f.sim.nodePath(ControlNode.NVIDIA_UVM).toString();

    f.sim.removeNode(ControlNode.NVIDIA_UVM);
    var told = f.awaitTask("task-a", devicesComplete(Condition.Status.False));
    var condition = Condition.find(told.status().conditions(), "DevicesComplete").orElseThrow();
    assertThat(condition.reason()).isEqualTo("DeviceNodeMissing");
    assertThat(condition.message()).contains("missing " + uvm);
    assertThat(told.status().phase()).isEqualTo(TaskPhase.Running); // Continue: left running

    f.sim.restoreNode(ControlNode.NVIDIA_UVM);
    var back = f.awaitTask("task-a", devicesComplete(Condition.Status.True));
    assertThat(back.status().phase()).isEqualTo(TaskPhase.Running);
  }

  @Test
  void withStopTheTaskIsKilledAndFailsDeviceNodeMissing() throws Exception {
    runningTaskOn("gpu-0", "task-s", DeviceLossPolicy.Stop);
    f.sim.removeNode(ControlNode.NVIDIA_UVM);
    var failed = f.awaitTask("task-s", phaseIs(TaskPhase.Failed));
    assertThat(failed.status().reason()).isEqualTo("DeviceNodeMissing");
    assertThat(failed.status().message())
        .contains("missing " + f.sim.nodePath(ControlNode.NVIDIA_UVM));
    assertThat(
            Condition.find(failed.status().conditions(), "DevicesComplete").orElseThrow().isTrue())
        .isFalse();
  }

  @Test
  void aRunningTaskIsToldWhenItsGpuNodeGoesAndANewClaimForAGpuWithoutItsNodeWaits()
      throws Exception {
    runningTaskOn("gpu-0", "task-g", DeviceLossPolicy.Continue);
    var gpu0 = f.sim.devDir().resolve("nvidia0");
    var gpu1 = f.sim.devDir().resolve("nvidia1");
    var away = tmp.resolve("away");
    Files.createDirectories(away);

    Files.move(gpu0, away.resolve("nvidia0"));
    var told = f.awaitTask("task-g", devicesComplete(Condition.Status.False));
    assertThat(
            Condition.find(told.status().conditions(), "DevicesComplete").orElseThrow().message())
        .contains("missing " + gpu0);

    // Hole 4b: a claim for a GPU whose own node is gone waits, naming the path, with nothing
    // reserved.
    Files.move(gpu1, away.resolve("nvidia1"));
    var c = f.api.create(claim("claim-1", "gpu-1"));
    var waiting = f.await(Kinds.RESOURCE_CLAIM, "claim-1", prepareIs(PrepareState.Phase.Pending));
    assertThat(prepareState(Optional.of(waiting)).orElseThrow().reason())
        .contains("missing " + gpu1);
    assertThat(f.holds(c.metadata().uid())).isFalse();
    var node =
        f.await(
            Kinds.NODE,
            AgentFixture.NODE,
            n ->
                n.flatMap(x -> Condition.find(x.status().conditions(), "DevicesReady"))
                    .filter(x -> x.message().contains("missing " + gpu1))
                    .isPresent());
    assertThat(node).isNotNull();

    Files.move(away.resolve("nvidia1"), gpu1);
    f.await(Kinds.RESOURCE_CLAIM, "claim-1", prepareIs(PrepareState.Phase.Prepared));
    Files.move(away.resolve("nvidia0"), gpu0);
    f.awaitTask("task-g", devicesComplete(Condition.Status.True));
  }
}
