package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.gang.GangTopology;
import dev.quartermaster.api.gang.MemberFailurePolicy;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskConditions;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskTemplate;
import dev.quartermaster.api.workload.WorkerGroup;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.cluster.Labels;
import dev.quartermaster.sim.world.Gangs.Job;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Issue 44, item 2: a node dies ({@code kill -9} of its agent, the machine unreachable) under a job
 * and the operator fences it ({@code qm node fence NODE --force}), before or after the node
 * lifecycle marked it lost. What the fence says it frees is then free: the claims the node held
 * lose its agent's finalizer with their allocation, so every task of the job runs again on the
 * other nodes — for a plain workload, a {@code RestartGang} gang and a {@code RestartMember} gang
 * alike — while the node is still down. Every promise is checked at every step. The fence of before
 * (its finalizers left on) leaves the replacements waiting for the dead agent.
 */
class FencedNodeTest {
  private static final Duration REPLACED_WITHIN = Duration.ofMinutes(3);

  @Test
  void aPlainWorkloadRunsAgainOnceItsDeadNodeIsFenced() {
    assertThat(replacedAfterFence(plain(), false, Variant.REAL)).isEqualTo(REPLACED);
  }

  @Test
  void aPlainWorkloadRunsAgainWhenTheNodeIsFencedAfterItWasMarkedLost() {
    assertThat(replacedAfterFence(plain(), true, Variant.REAL)).isEqualTo(REPLACED);
  }

  @Test
  void aRestartGangGangIsPlacedAgainWhole() {
    var ring = new Job("ring", 2, 2, Optional.empty(), MemberFailurePolicy.RestartGang, anywhere());
    assertThat(replacedAfterFence(ring.workload(), false, Variant.REAL)).isEqualTo(REPLACED);
  }

  @Test
  void aRestartMemberGangGetsItsMemberBack() {
    var elastic =
        new Job("elastic", 3, 1, Optional.empty(), MemberFailurePolicy.RestartMember, anywhere());
    assertThat(replacedAfterFence(elastic.workload(), true, Variant.REAL)).isEqualTo(REPLACED);
  }

  @Test
  void theFenceThatLeftItsFinalizersLeavesTheReplacementsWaitingForTheDeadAgent() {
    var naive = replacedAfterFence(plain(), false, Variant.controlView(FenceLeavesFinalizers::new));
    assertThat(naive.replaced()).isFalse();
    assertThat(naive.violations())
        .singleElement()
        .asString()
        .startsWith(
            "FENCE node node-1 fenced 60s ago still holds [claim plain-w-0-gpu (deleting):"
                + " finalizer quartermaster.dev/agent-node-1");
  }

  /**
   * Until the lost node comes back or is fenced, its tasks' replacements wait for their claims, and
   * each task says so, and what frees them, instead of a back-off that is long over.
   */
  @Test
  void aLostNodesTaskSaysWhatItsReplacementWaitsFor() {
    Campaign.quiet();
    var world = new WholeCluster(7, 3, 2, Variant.REAL);
    world.api().create(plain());
    world.env().runUntil(() -> running(world, "plain") == 4, REPLACED_WITHIN);
    var slot = world.node("node-1");
    world.crashAgent(slot);
    slot.api.cut(true);
    // Lost after the 40 s grace, its back-off of 10 s over: the task waits, deleting, for its
    // claims.
    world.env().runUntil(() -> false, Duration.ofMinutes(2));
    var waiting =
        world.view().tasks().stream()
            .filter(t -> t.spec().node().equals(Optional.of("node-1")))
            .toList();
    assertThat(waiting).isNotEmpty();
    for (var t : waiting) {
      assertThat(t.metadata().isDeleting()).isTrue();
      var restarting =
          Condition.find(t.status().conditions(), TaskConditions.RESTARTING).orElseThrow();
      assertThat(restarting.reason()).isEqualTo("WaitingForClaims");
      assertThat(restarting.message())
          .isEqualTo(
              "its back-off is over; it is replaced once claim "
                  + t.metadata().name()
                  + "-gpu is unprepared on node node-1, whose agent is not ready (HeartbeatMissed):"
                  + " that waits for the agent to come back, or, if the node is down, for `qm"
                  + " node fence node-1`");
    }
  }

  /** Whether the job ran again, whole, away from the dead node; the promises it broke meanwhile. */
  record Outcome(boolean replaced, List<String> violations) {}

  private static final Outcome REPLACED = new Outcome(true, List.of());

  private static GangTopology anywhere() {
    return GangTopology.ANYWHERE;
  }

  /** 4 workers of 1 GPU that run until stopped. */
  private static Workload plain() {
    var batch = SeedRun.batch(false);
    var group = batch.spec().groups().getFirst();
    var train =
        new TaskTemplate(List.of("train"), Map.of(), "exec", Optional.empty(), List.of(), Map.of());
    var workers = new WorkerGroup(group.name(), 4, train, group.claimTemplates(), null);
    return new Workload(
        ObjectMeta.named("plain"), batch.spec().withGroups(List.of(workers)), batch.status());
  }

  /**
   * {@code job} runs on 3 nodes of 2 GPUs; the node of one of its tasks dies and is fenced (after
   * the grace period if {@code markedLost}); whether every task of the job runs again, none on that
   * node, and no claim names it, within {@link #REPLACED_WITHIN} — no promise broken meanwhile.
   */
  private static Outcome replacedAfterFence(Workload job, boolean markedLost, Variant variant) {
    Campaign.quiet();
    var world = new WholeCluster(7, 3, 2, variant);
    var promises = new Promises(world);
    var violations = new ArrayList<String>();
    world.api().create(job);
    int wanted = job.spec().groups().stream().mapToInt(g -> g.replicas()).sum();
    var name = job.metadata().name();
    assertThat(run(world, promises, violations, () -> running(world, name) == wanted))
        .as("the job runs: " + violations)
        .isTrue();
    var dead =
        world.view().tasks().stream()
            .filter(t -> owned(t, name))
            .map(t -> t.spec().node().orElseThrow())
            .sorted()
            .findFirst()
            .orElseThrow();
    var slot = world.node(dead);
    world.crashAgent(slot);
    slot.api.cut(true);
    if (markedLost) {
      assertThat(
              run(
                  world,
                  promises,
                  violations,
                  () ->
                      world.view().tasks().stream()
                          .anyMatch(t -> owned(t, name) && t.status().reason().equals("NodeLost"))))
          .as("its tasks are marked lost")
          .isTrue();
    }
    world.nodeSpec(dead, sp -> new NodeSpec(true, true));
    var done =
        run(
            world,
            promises,
            violations,
            () ->
                running(world, name) == wanted
                    && world.view().tasks().stream()
                        .noneMatch(t -> owned(t, name) && t.spec().node().equals(Optional.of(dead)))
                    && new ReleasePromises(world).notConverged().isEmpty());
    return new Outcome(done, List.copyOf(violations));
  }

  private static boolean run(
      WholeCluster world,
      Promises promises,
      List<String> violations,
      java.util.function.BooleanSupplier done) {
    return world
            .env()
            .runUntil(
                () -> {
                  violations.addAll(promises.check());
                  return !violations.isEmpty() || done.getAsBoolean();
                },
                REPLACED_WITHIN)
        && violations.isEmpty();
  }

  private static long running(WholeCluster world, String workload) {
    return world.view().tasks().stream()
        .filter(
            t ->
                owned(t, workload)
                    && !t.metadata().isDeleting()
                    && t.status().phase() == TaskPhase.Running)
        .count();
  }

  private static boolean owned(Task t, String workload) {
    return workload.equals(t.metadata().labels().get(Labels.WORKLOAD));
  }
}
