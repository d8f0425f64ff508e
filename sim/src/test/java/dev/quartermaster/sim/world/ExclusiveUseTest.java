package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.device.CounterConsumption;
import dev.quartermaster.api.device.CounterSet;
import dev.quartermaster.api.device.Device;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.meta.ObjectMeta;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The simulation's one I1 judge: a device in two allocations, a shared counter over-consumed, or a
 * part of a GPU and the whole GPU in two.
 */
class ExclusiveUseTest {
  static ResourceClaim allocated(String name, String device) {
    return new ResourceClaim(
        ObjectMeta.named(name),
        new ResourceClaimSpec(List.of(), Optional.empty()),
        ResourceClaimStatus.EMPTY.withAllocation(
            new Allocation("node-1", List.of(new AllocatedDevice("gpu", device)))));
  }

  static DeviceSlice slice(boolean counters) {
    var consumes =
        counters
            ? List.of(new CounterConsumption("gpu-0", Map.of("compute", 1L)))
            : List.<CounterConsumption>of();
    var whole =
        counters
            ? List.of(new CounterConsumption("gpu-0", Map.of("compute", 7L)))
            : List.<CounterConsumption>of();
    return new DeviceSlice(
        ObjectMeta.named("node-1"),
        new DeviceSliceSpec(
            "node-1",
            List.of(
                new Device("gpu-0", "gpu", Map.of(), Device.Health.Healthy, "", whole),
                new Device("gpu-0-slice-0", "gpu", Map.of(), Device.Health.Healthy, "", consumes)),
            counters ? List.of(new CounterSet("gpu-0", Map.of("compute", 7L))) : List.of()),
        null);
  }

  @Test
  void aDeviceInTwoAllocationsIsI1() {
    assertThat(
            ExclusiveUse.violations(
                List.of(allocated("a", "gpu-0"), allocated("b", "gpu-0")),
                ExclusiveUse.bySlices(List.of(slice(false)))))
        .containsExactly("node-1/gpu-0 allocated to claims a and b");
  }

  @Test
  void theGpuAndItsSliceInTwoAllocationsAreI1OnlyWhenTheyShareCounters() {
    var claims = List.of(allocated("a", "gpu-0"), allocated("b", "gpu-0-slice-0"));
    assertThat(ExclusiveUse.violations(claims, ExclusiveUse.bySlices(List.of(slice(false)))))
        .isEmpty();
    assertThat(ExclusiveUse.violations(claims, ExclusiveUse.bySlices(List.of(slice(true)))))
        .singleElement()
        .asString()
        .startsWith("node-1: device gpu-0-slice-0 shares counter gpu-0/compute: 8 of 7");
  }

  @Test
  void aReplicaAndItsWholeGpuInTwoAllocationsAreI1WhateverTheSliceSays() {
    var claims = List.of(allocated("a", "gpu-0"), allocated("b", "gpu-0-ts-1"));
    assertThat(ExclusiveUse.violations(claims, ExclusiveUse.bySlices(List.of(slice(false)))))
        .containsExactly(
            "node-1: device gpu-0-ts-1 and device gpu-0 are one GPU (a part and its whole); gpu-0"
                + " is held by a, and device gpu-0-ts-1 by b");
  }
}
