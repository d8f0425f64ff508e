package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.gang.GangState;
import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.gang.MemberFailurePolicy;
import dev.quartermaster.api.gang.TopologyKeys;
import dev.quartermaster.api.gang.WorkloadGangs;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Issue 44 item 3, as reported: a gang of 2 × 4 GPUs requiring one NVLink clique runs on node-1 and
 * node-2 (clique-a); {@code qm node drain} of one of its nodes cordons it and deletes the member
 * there. Another clique (node-3, node-4) has 8 GPUs free. The gang must not be left with one member
 * running and holding 4 GPUs while the other waits for room that clique-a no longer has: it is
 * stopped and placed again whole in clique-b — at once under {@code RestartGang} (a member stopped
 * from outside has failed), within the recovery's bound under {@code RestartMember}. Before the fix
 * (the naive recovery) it stays half-placed for good, and still reads {@code Placed}. Every
 * promise, G3 included, is checked at every step.
 */
class DrainUnderGangTest {
  private static final Duration WHOLE_AGAIN = Duration.ofMinutes(2);

  @Test
  void aRestartMemberGangIsStoppedAndPlacedAgainWholeInAnotherClique() {
    Campaign.quiet();
    var s = new Scenario(Variant.REAL, MemberFailurePolicy.RestartMember);
    var drained = s.drainANodeOfTheGang();
    assertThat(s.run(s::wholeInCliqueB, WHOLE_AGAIN))
        .as("placed whole in clique-b; violations " + s.violations + "; tasks " + s.tasks())
        .isTrue();
    assertThat(s.nodesOfMembers()).doesNotContain(drained);
    assertThat(s.events("GangRestarted")).anyMatch(m -> m.contains("was partly placed for 30s"));
  }

  @Test
  void aRestartGangGangStopsAtOnceWhenAMemberIsDrained() {
    Campaign.quiet();
    var s = new Scenario(Variant.REAL, MemberFailurePolicy.RestartGang);
    s.drainANodeOfTheGang();
    // At once: the other member is stopped before any partial bound could be over.
    assertThat(s.run(s::wholeInCliqueB, Duration.ofSeconds(25)))
        .as("placed whole in clique-b; violations " + s.violations + "; tasks " + s.tasks())
        .isTrue();
    assertThat(s.events("GangRestarted"))
        .anyMatch(m -> m.contains("failed or were stopped (a drain, a delete)"));
  }

  @Test
  void theNaiveRecoveryLeavesTheGangHalfPlacedForGood() {
    Campaign.quiet();
    var s =
        new Scenario(GangNaiveVariantsTest.leftPartlyPlaced(), MemberFailurePolicy.RestartMember);
    s.drainANodeOfTheGang();
    assertThat(s.run(s::wholeInCliqueB, Duration.ofMinutes(5))).isFalse();
    assertThat(s.violations).anyMatch(v -> v.startsWith("G3 gang job/workers partly placed"));
    var running = s.tasks().stream().filter(t -> t.status().phase() == TaskPhase.Running).toList();
    assertThat(running).hasSize(1);
    // What the user is told is the fix's either way: not Placed.
    var w = s.world.api().get(Kinds.WORKLOAD, "job").orElseThrow();
    assertThat(WorkloadGangs.statusOf(w.status(), "workers").orElseThrow().state())
        .isEqualTo(GangState.Partial);
  }

  /** Four nodes of 4 GPUs in two cliques, and the gang running in clique-a. */
  private static final class Scenario extends CheckedWorld {

    Scenario(Variant variant, MemberFailurePolicy policy) {
      super(new WholeCluster(44, 4, 4, variant));
      for (int i = 1; i <= 4; i++) {
        world.labelNode(
            "node-" + i, Map.of(TopologyKeys.NVLINK_CLIQUE, i <= 2 ? "clique-a" : "clique-b"));
      }
      // clique-b is cordoned until the gang runs in clique-a, then takes work again.
      world.nodeSpec("node-3", sp -> new NodeSpec(true, false));
      world.nodeSpec("node-4", sp -> new NodeSpec(true, false));
      var clique = new GangTopology(Optional.of(TopologyKeys.NVLINK_CLIQUE), Optional.empty());
      world.api().create(new Gangs.Job("job", 2, 4, Optional.empty(), policy, clique).workload());
      assertThat(run(() -> running().size() == 2, Duration.ofMinutes(2)))
          .as("the gang runs in clique-a: " + violations)
          .isTrue();
      world.nodeSpec("node-3", sp -> new NodeSpec(false, false));
      world.nodeSpec("node-4", sp -> new NodeSpec(false, false));
    }

    /** {@code qm node drain} of the first member's node: cordoned, its tasks deleted. */
    String drainANodeOfTheGang() {
      var node = running().getFirst().spec().node().orElseThrow();
      world.nodeSpec(node, sp -> new NodeSpec(true, sp.fenced()));
      for (var t : tasks()) {
        if (node.equals(t.spec().node().orElse(""))) {
          promises.operatorDeleted(t.metadata().name());
          world.api().delete(Kinds.TASK, t.metadata().name());
        }
      }
      return node;
    }

    boolean wholeInCliqueB() {
      var running = running();
      return running.size() == 2
          && running.stream()
              .allMatch(t -> Set.of("node-3", "node-4").contains(t.spec().node().orElse("")));
    }

    TreeSet<String> nodesOfMembers() {
      var out = new TreeSet<String>();
      running().forEach(t -> t.spec().node().ifPresent(out::add));
      return out;
    }

    List<Task> running() {
      return tasks().stream()
          .filter(t -> t.status().phase() == TaskPhase.Running && !t.metadata().isDeleting())
          .toList();
    }
  }
}
