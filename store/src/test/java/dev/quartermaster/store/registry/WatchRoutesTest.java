package dev.quartermaster.store.registry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.AgentFinalizer;
import dev.quartermaster.api.claim.Allocation;
import dev.quartermaster.api.claim.Allocation.AllocatedDevice;
import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.client.NodeAudience;
import dev.quartermaster.api.meta.ApiObject;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.store.Audience;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/**
 * A change is routed to every node that the object concerned before it or concerns after it, so a
 * node agent hears of an object leaving it (deallocated, moved, its finalizer gone) as well as
 * arriving; and to no other node, except that a task being deleted goes to all. Checked over the
 * lifecycles of a claim and a task, and against a naive variant that routes by the new value only.
 */
class WatchRoutesTest {
  private static final List<String> NODES = List.of("a", "b", "c");

  /** Routes by what the object is after the change (before it, for a delete): misses departures. */
  static final BiFunction<Optional<ApiObject>, Optional<ApiObject>, Audience> NAIVE =
      (before, after) -> WatchRoutes.of(Optional.empty(), after.or(() -> before));

  @Test
  void everyChangeOfTheLifecyclesReachesTheNodesOfBothSidesAndNoOthers() {
    assertThat(misrouted(WatchRoutes::of)).isEmpty();
  }

  @Test
  void theNaiveRouteByTheNewValueLosesADeallocatedClaimAndAMovedTask() {
    assertThat(misrouted(NAIVE))
        .anySatisfy(m -> assertThat(m).contains("deallocated").contains("misses a"))
        .anySatisfy(m -> assertThat(m).contains("task moved").contains("misses a"));
  }

  /**
   * Each change of the lifecycles whose audience misses a node it concerns, or names one it does
   * not.
   */
  private static List<String> misrouted(
      BiFunction<Optional<ApiObject>, Optional<ApiObject>, Audience> route) {
    var out = new ArrayList<String>();
    for (var lifecycle : lifecycles().entrySet()) {
      var steps = lifecycle.getValue();
      for (int i = 0; i <= steps.size(); i++) {
        Optional<ApiObject> before = i == 0 ? Optional.empty() : Optional.of(steps.get(i - 1));
        Optional<ApiObject> after =
            i == steps.size() ? Optional.empty() : Optional.of(steps.get(i));
        var audience = route.apply(before, after);
        for (var node : NODES) {
          boolean concerned =
              before.map(o -> NodeAudience.of(o).includes(node)).orElse(false)
                  || after.map(o -> NodeAudience.of(o).includes(node)).orElse(false);
          boolean routed = audience.includes("node/" + node);
          if (concerned != routed) {
            out.add(
                lifecycle.getKey()
                    + " step "
                    + i
                    + (concerned ? " misses " : " wrongly names ")
                    + node);
          }
        }
      }
    }
    return out;
  }

  private static Map<String, List<ApiObject>> lifecycles() {
    var claim =
        new ResourceClaim(
            ObjectMeta.named("c"),
            new ResourceClaimSpec(
                List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()),
            ResourceClaimStatus.EMPTY);
    var onA = allocated(claim, "a");
    var finalized =
        onA.withMetadata(onA.metadata().withFinalizers(List.of(new AgentFinalizer("a").name())));
    var prepared =
        finalized.withStatus(
            new ResourceClaimStatus(
                finalized.status().allocation(),
                List.of(),
                Map.of(
                    "a",
                    new PrepareState(PrepareState.Phase.Prepared, "", List.of(), Optional.empty())),
                List.of()));
    var deleting = prepared.withMetadata(prepared.metadata().withDeletedAt(Instant.EPOCH));
    var deallocatedWhileDeleting =
        deleting.withStatus(
            new ResourceClaimStatus(
                Optional.empty(), List.of(), deleting.status().prepare(), List.of()));
    var unprepared = deallocatedWhileDeleting.withStatus(ResourceClaimStatus.EMPTY);
    var deallocated = onA.withStatus(ResourceClaimStatus.EMPTY);

    var task = new Task(ObjectMeta.named("t"), TaskSpec.EMPTY, TaskStatus.EMPTY);
    var pinned = task.withSpec(task.spec().withNode(Optional.of("a")));
    var scheduled =
        pinned.withStatus(
            new TaskStatus(
                TaskPhase.Scheduled,
                "",
                "",
                Optional.of("a"),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                List.of()));
    var taskDeleting = scheduled.withMetadata(scheduled.metadata().withDeletedAt(Instant.EPOCH));
    var moved = task.withSpec(task.spec().withNode(Optional.of("b")));

    return Map.of(
        "claim prepared and deleted",
            List.of(
                claim, onA, finalized, prepared, deleting, deallocatedWhileDeleting, unprepared),
        "claim deallocated and moved", List.of(claim, onA, deallocated, allocated(claim, "b")),
        "task scheduled and deleted", List.of(task, pinned, scheduled, taskDeleting),
        "task moved", List.of(pinned, moved));
  }

  private static ResourceClaim allocated(ResourceClaim c, String node) {
    return c.withStatus(
        c.status()
            .withAllocation(new Allocation(node, List.of(new AllocatedDevice("gpu", "gpu-0")))));
  }
}
