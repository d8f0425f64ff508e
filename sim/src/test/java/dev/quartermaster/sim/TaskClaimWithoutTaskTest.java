package dev.quartermaster.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.meta.OwnerReference;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.control.allocator.Allocator;
import dev.quartermaster.control.allocator.AllocatorKey;
import dev.quartermaster.control.cluster.Informers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Found by the issue 44 campaign (seed 81): an operator deleted a waiting gang's member, and a new
 * leader's allocator, before the member's claim went with it, placed that claim as if it were
 * stand-alone: a gang that holds nothing held devices through it (G1). A claim its task owns is
 * placed only with that task; once the task is going, nowhere. A stand-alone claim (no task owns
 * it) is placed on its own, as before. The allocator alone, so that nothing deletes the claim.
 */
class TaskClaimWithoutTaskTest {
  private static ResourceClaim claim(String name, Optional<OwnerReference> owner) {
    var meta = ObjectMeta.named(name);
    if (owner.isPresent()) {
      meta = meta.withOwner(owner.get());
    }
    return new ResourceClaim(
        meta,
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpu", "gpu-any", 1, List.of())), Optional.empty()),
        ResourceClaimStatus.EMPTY);
  }

  @Test
  void theClaimOfATaskBeingDeletedIsNotPlacedOnItsOwn() {
    var c = new SimCluster(81, WatchFaults.staleCache());
    c.deviceClass("gpu-any", "gpu");
    c.addNode("node-1", 4);
    var t =
        c.api()
            .create(
                new Task(
                    ObjectMeta.named("member")
                        .withFinalizers(List.of("test.quartermaster.dev/hold")),
                    new TaskSpec(
                        Optional.empty(),
                        List.of("work"),
                        Map.of(),
                        List.of("member-gpu"),
                        List.of(),
                        "exec",
                        Optional.empty()),
                    TaskStatus.EMPTY));
    c.api().create(claim("member-gpu", Optional.of(OwnerReference.of(t))));
    c.api().create(claim("solo-gpu", Optional.empty()));
    // The task goes (held by a finalizer, as while its agent stops it) before its claim does; then
    // a new leader's allocator starts and looks at every claim.
    c.api().delete(Kinds.TASK, "member");
    var inf = new Informers(c.env(), c.api());
    var allocator = new Allocator(c.env(), c.api(), inf);
    inf.start();
    c.runUntil(inf::hasSynced, Duration.ofSeconds(10));
    inf.claims().cache().keys().forEach(k -> allocator.enqueue(AllocatorKey.claim(k)));
    allocator.loop().start();
    c.runUntil(() -> allocated(c, "solo-gpu"), Duration.ofSeconds(30));
    c.runUntil(() -> false, Duration.ofSeconds(10));

    assertThat(allocated(c, "solo-gpu")).as("a stand-alone claim is placed").isTrue();
    assertThat(allocated(c, "member-gpu")).as("the claim of a task being deleted").isFalse();
  }

  private static boolean allocated(SimCluster c, String claim) {
    return c.api()
        .get(Kinds.RESOURCE_CLAIM, claim)
        .map(x -> x.status().allocation().isPresent())
        .orElse(false);
  }
}
