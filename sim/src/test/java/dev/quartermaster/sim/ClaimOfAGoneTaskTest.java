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
import dev.quartermaster.control.ControlPlane;
import dev.quartermaster.control.ControlPlaneOptions;
import dev.quartermaster.store.StoreLeases;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A task's own claim is placed with its task, never alone. Campaign seed 1260: the operator deleted
 * a member of a gang that was waiting to be placed; its claim, named by no live task any more, was
 * taken for a stand-alone claim and placed alone, one member holding devices for a gang that had
 * never been whole (G1). A new leader looks at every claim by its name, which is how it got there.
 */
class ClaimOfAGoneTaskTest {
  @Test
  void theClaimOfATaskBeingDeletedIsNotAllocated() {
    for (long seed : SimCluster.seeds(5)) {
      var c = new SimCluster(seed, WatchFaults.staleCache());
      c.deviceClass("gpu-any", "gpu");
      var task =
          c.api()
              .create(
                  new Task(
                      ObjectMeta.named("member").withFinalizers(List.of("test/keep")),
                      new TaskSpec(
                          Optional.empty(),
                          List.of("nvidia-smi"),
                          Map.of(),
                          List.of("member-gpu"),
                          List.of(),
                          "exec",
                          Optional.empty()),
                      TaskStatus.EMPTY));
      c.api()
          .create(
              new ResourceClaim(
                  ObjectMeta.named("member-gpu")
                      .withOwner(
                          new OwnerReference(Kinds.TASK.name(), "member", task.metadata().uid())),
                  new ResourceClaimSpec(
                      List.of(new DeviceRequest("gpu", "gpu-any", 1, List.of())), Optional.empty()),
                  ResourceClaimStatus.EMPTY));
      c.api().delete(Kinds.TASK, "member"); // held by its finalizer: being deleted
      c.addNode("node-1", 1);
      // A replica that takes over looks again at every claim it has seen (what the last leader may
      // have left half done): by name, a task's own claim among them.
      var first =
          ControlPlane.start(
              c.api(), new StoreLeases(c.store()), c.env(), ControlPlaneOptions.defaults("cp-1"));
      c.runUntil(() -> false, Duration.ofSeconds(5));
      var second =
          ControlPlane.start(
              c.api(), new StoreLeases(c.store()), c.env(), ControlPlaneOptions.defaults("cp-2"));
      c.runUntil(() -> false, Duration.ofSeconds(5));
      first.close();

      c.runUntil(() -> false, Duration.ofSeconds(60));
      second.close();

      assertThat(
              c.api().get(Kinds.RESOURCE_CLAIM, "member-gpu").orElseThrow().status().allocation())
          .as("seed " + seed)
          .isEmpty();
    }
  }
}
