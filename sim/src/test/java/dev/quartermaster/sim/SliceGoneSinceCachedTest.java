package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.device.DeviceSlice;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.event.EventRecorder;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.control.allocator.Allocator;
import dev.quartermaster.control.allocator.AllocatorKey;
import dev.quartermaster.control.allocator.AllocatorPolicy;
import dev.quartermaster.control.allocator.Backfill;
import dev.quartermaster.control.allocator.Packing;
import dev.quartermaster.control.allocator.SliceCheck;
import dev.quartermaster.control.cluster.Informers;
import dev.quartermaster.control.deadline.TaskDeadlines;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The allocator never records a device its node's slice no longer offers, however far its slice
 * cache lags (campaign seed 979: a node mended after a fence came back with a GPU's device node
 * gone; its agent published a slice without that GPU, but the leader's slice cache still showed the
 * slice from before, while its node cache already showed the node schedulable again. The gang
 * placed there got the gone GPU, which its agent could never prepare: a member Preparing, holding
 * devices, for good, L1). Tried: trusting the cache ({@link SliceCheck#CACHED}) allocates it.
 */
class SliceGoneSinceCachedTest {
  @Test
  void aDeviceGoneFromTheLiveSliceIsNotAllocated() {
    assertThat(run(SliceCheck.LIVE)).as("devices allocated while the cache lags").isEmpty();
  }

  @Test
  void trustingTheCachedSliceAllocatesTheGoneDevice() {
    assertThat(run(SliceCheck.CACHED)).as("the naive allocator").contains("gpu-1");
  }

  private static List<String> run(SliceCheck check) {
    var c = new SimCluster(979, WatchFaults.NONE);
    c.deviceClass("gpu-any", "gpu");
    c.addNode("node-1", 2);
    var inf = new Informers(c.env(), c.api());
    inf.start();
    c.runUntil(inf::hasSynced, Duration.ofSeconds(10));
    // The slice cache stops where it is (a watch that lags), then the agent finds gpu-1 gone.
    inf.slices().stop();
    var slice = c.api().get(Kinds.DEVICE_SLICE, "node-1").orElseThrow();
    c.api()
        .update(
            new DeviceSlice(
                slice.metadata(),
                new DeviceSliceSpec(
                    "node-1",
                    slice.spec().devices().stream()
                        .filter(d -> !d.name().equals("gpu-1"))
                        .toList()),
                slice.status()));
    c.api()
        .create(
            new ResourceClaim(
                ObjectMeta.named("both-gpus"),
                new ResourceClaimSpec(
                    List.of(new DeviceRequest("gpu", "gpu-any", 2, List.of())), Optional.empty()),
                ResourceClaimStatus.EMPTY));
    var allocator =
        new Allocator(
            c.env(),
            c.api(),
            inf,
            EventRecorder.NONE,
            new AllocatorPolicy(Packing.BEST_FIT, Backfill.RESERVE, check),
            new TaskDeadlines(c.env()));
    c.runUntil(() -> inf.claims().cache().get("both-gpus").isPresent(), Duration.ofSeconds(10));
    allocator.enqueue(AllocatorKey.claim("both-gpus"));
    allocator.loop().start();
    c.runUntil(() -> false, Duration.ofSeconds(30));
    return c.api()
        .get(Kinds.RESOURCE_CLAIM, "both-gpus")
        .flatMap(x -> x.status().allocation())
        .map(a -> a.devices().stream().map(AllocatedDevice::device).toList())
        .orElse(List.of());
  }
}
