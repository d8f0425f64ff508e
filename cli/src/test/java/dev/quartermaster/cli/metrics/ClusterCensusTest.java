package dev.quartermaster.cli.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.format.ClaimState;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskStatus;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ClusterCensusTest {

  static Device gpu(String name, Device.Health health) {
    return new Device(name, "gpu", Map.of(), health, "");
  }

  static ResourceClaim claim(
      String name, String node, Optional<PrepareState.Phase> prepared, String... devices) {
    var allocation =
        new Allocation(
            node,
            List.of(devices).stream().map(d -> new Allocation.AllocatedDevice("gpu", d)).toList());
    Map<String, PrepareState> prepare =
        prepared
            .map(p -> Map.of(node, new PrepareState(p, "", List.of(), Optional.empty())))
            .orElse(Map.of());
    return new ResourceClaim(
        ObjectMeta.named(name),
        null,
        new ResourceClaimStatus(Optional.of(allocation), List.of(), prepare, List.of()));
  }

  static Task task(String name, TaskPhase phase) {
    return new Task(
        ObjectMeta.named(name),
        null,
        new TaskStatus(
            phase,
            "",
            "",
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            List.of()));
  }

  @Test
  void eachDeviceIsCountedInExactlyOneStateAndUnhealthyWinsOverHeld() {
    var slice =
        new DeviceSlice(
            ObjectMeta.named("n1"),
            new DeviceSliceSpec(
                "n1",
                List.of(
                    gpu("gpu-0", Device.Health.Healthy), gpu("gpu-1", Device.Health.Healthy),
                    gpu("gpu-2", Device.Health.Unhealthy), gpu("gpu-3", Device.Health.Healthy))),
            null);
    var claims =
        List.of(
            claim("prepared", "n1", Optional.of(PrepareState.Phase.Prepared), "gpu-0"),
            claim("allocated", "n1", Optional.empty(), "gpu-1"),
            claim("broken", "n1", Optional.of(PrepareState.Phase.Prepared), "gpu-2"));

    var census = ClusterCensus.of(List.of(), List.of(slice), claims, List.of());

    assertThat(census.devices())
        .containsOnly(
            Map.entry(new DeviceGroup("n1", "gpu", DeviceState.PREPARED), 1L),
            Map.entry(new DeviceGroup("n1", "gpu", DeviceState.ALLOCATED), 1L),
            Map.entry(new DeviceGroup("n1", "gpu", DeviceState.UNHEALTHY), 1L),
            Map.entry(new DeviceGroup("n1", "gpu", DeviceState.FREE), 1L));
    assertThat(census.claims())
        .containsEntry(ClaimState.PREPARED, 2L)
        .containsEntry(ClaimState.ALLOCATED, 1L)
        .containsEntry(ClaimState.PENDING, 0L)
        .containsEntry(ClaimState.FAILED, 0L);
  }

  @Test
  void everyPhaseAndConditionStatusIsPresentWithZeros() {
    var ready = new Condition("DevicesReady", Condition.Status.True, "", "", Optional.empty());
    var node =
        new Node(ObjectMeta.named("n1"), null, NodeStatus.EMPTY.withConditions(List.of(ready)));

    var census =
        ClusterCensus.of(
            List.of(node), List.of(), List.of(), List.of(task("t", TaskPhase.Running)));

    assertThat(census.tasks())
        .hasSize(TaskPhase.values().length)
        .containsEntry(TaskPhase.Running, 1L)
        .containsEntry(TaskPhase.Pending, 0L);
    assertThat(census.nodes())
        .containsOnly(
            Map.entry(new NodeCondition("DevicesReady", Condition.Status.True), 1L),
            Map.entry(new NodeCondition("DevicesReady", Condition.Status.False), 0L),
            Map.entry(new NodeCondition("DevicesReady", Condition.Status.Unknown), 0L));
    assertThat(census.claims()).allSatisfy((state, count) -> assertThat(count).isZero());
  }
}
