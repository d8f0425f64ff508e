package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.DeviceRequest;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.claim.ResourceClaimSpec;
import dev.quartermaster.api.claim.ResourceClaimStatus;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Found by the seed-1 churn under {@code qm up}: a stand-alone claim made before the task that
 * names it is placed on any node, and a task pinned to another node then cannot run. The task says
 * so and what to do; the claim made again follows the task.
 */
class ClaimMadeBeforeItsTaskTest {

  @Test
  void aTaskPinnedAwayFromItsEarlierClaimSaysWhereTheClaimIsAndTheClaimMadeAgainFollowsIt() {
    var w = new WholeCluster(21, 2, 4, Variant.REAL);
    w.api().create(claim());
    w.env().advance(Duration.ofSeconds(10));
    var placed =
        w.api()
            .get(Kinds.RESOURCE_CLAIM, "early")
            .orElseThrow()
            .status()
            .allocation()
            .orElseThrow()
            .node();
    var other = placed.equals("node-1") ? "node-2" : "node-1";
    w.api()
        .create(
            new Task(
                ObjectMeta.named("pinned"),
                new TaskSpec(
                    Optional.of(other),
                    List.of("train"),
                    Map.of(),
                    List.of("early"),
                    List.of(),
                    "exec",
                    Optional.empty()),
                TaskStatus.EMPTY));
    w.env().advance(Duration.ofSeconds(10));
    var waiting = w.api().get(Kinds.TASK, "pinned").orElseThrow().status();
    assertThat(waiting.phase()).isNotEqualTo(TaskPhase.Running);
    assertThat(waiting.reason()).isEqualTo("NodeMismatch");
    assertThat(waiting.message())
        .isEqualTo(
            "pinned to "
                + other
                + " but its claims are on "
                + placed
                + " (a claim made"
                + " before the task that names it may be placed on any node: delete it and create it again, and it follows"
                + " the task)");

    w.api().delete(Kinds.RESOURCE_CLAIM, "early");
    w.env().advance(Duration.ofSeconds(10));
    w.api().create(claim());
    w.env().advance(Duration.ofSeconds(20));
    assertThat(w.api().get(Kinds.TASK, "pinned").orElseThrow().status().phase())
        .isEqualTo(TaskPhase.Running);
  }

  private static ResourceClaim claim() {
    return new ResourceClaim(
        ObjectMeta.named("early"),
        new ResourceClaimSpec(
            List.of(new DeviceRequest("gpu", "gpu", 1, List.of())), Optional.empty()),
        ResourceClaimStatus.EMPTY);
  }
}
