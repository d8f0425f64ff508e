package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.host.NodePublications;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.sim.csi.SimStorage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A writer's node goes silent (partitioned: its process may still be writing). Its single-writer
 * volume is not given to the replacement on another node — for as long as the partition lasts —
 * until the node comes back and lets go itself, or an operator fences it and the controller
 * releases on its behalf (detaching the volume from under it). Every promise is checked at every
 * step.
 */
class LostWriterNodeTest {
  static final Duration PARTITION = Duration.ofMinutes(10);

  @Test
  void theVolumeWaitsForTheLostNodeToComeBack() {
    Campaign.quiet();
    var s = new Scenario(11);
    s.cut("node-2");
    s.expectNoHandOver(PARTITION);
    s.heal("node-2");
    s.expectHandOver();
  }

  @Test
  void theVolumeMovesOnceTheLostNodeIsFenced() {
    Campaign.quiet();
    var s = new Scenario(12);
    s.cut("node-2");
    s.expectNoHandOver(PARTITION);
    s.world.nodeSpec("node-2", sp -> new NodeSpec(sp.unschedulable(), true));
    s.expectHandOver();
  }

  /**
   * Issue 30, seed 3, on storage that keeps a node's mounts on detach (hostpath): the fenced
   * writer's target outlives its claim. When node-2 comes back its agent unpublishes that leftover,
   * so a later writer there is released in turn and the volume moves on; the naive agent, blind to
   * the node's publications, leaves it, every later release on node-2 fails on the unstage, and the
   * volume never moves again.
   */
  @Test
  void aFencedWritersLeftoverTargetIsUnpublishedWhenItsNodeComesBack() {
    Campaign.quiet();
    var s = fencedThenBack(Variant.REAL);
    assertThat(s.run(() -> s.world.orphanPublications().isEmpty(), Duration.ofMinutes(5)))
        .as("the leftover target is unpublished: " + s.world.orphanPublications())
        .isTrue();
    assertThat(s.laterWritersGetTheVolume()).as("a writer on node-2, then one on node-3").isTrue();
  }

  @Test
  void theNaiveAgentBlindToItsNodesPublicationsHoldsTheVolumeForEver() {
    Campaign.quiet();
    var s =
        fencedThenBack(
            Variant.host(
                host ->
                    new ForwardingHost(host) {
                      @Override
                      public NodePublications publications() {
                        return java.util.Set::of;
                      }
                    }));
    assertThat(s.laterWritersGetTheVolume()).isFalse();
    assertThat(s.world.orphanPublications()).isNotEmpty();
  }

  /**
   * {@code first} on node-2 cut off and fenced; {@code second} gets the volume on node-3; node-2
   * back and unfenced.
   */
  private static Scenario fencedThenBack(Variant variant) {
    var s = new Scenario(12, variant, SimStorage.DetachEffect.KeepsNodeMounts);
    s.cut("node-2");
    s.world.nodeSpec("node-2", sp -> new NodeSpec(sp.unschedulable(), true));
    s.expectHandOver();
    s.heal("node-2");
    s.world.nodeSpec("node-2", sp -> new NodeSpec(sp.unschedulable(), false));
    return s;
  }

  /** A writer on node-2 holds {@code data}; its replacement waits on node-3. */
  static final class Scenario extends CheckedWorld {

    Scenario(long seed) {
      this(seed, Variant.REAL, SimStorage.DetachEffect.DropsNodeMounts);
    }

    Scenario(long seed, Variant variant, SimStorage.DetachEffect detach) {
      super(new WholeCluster(seed, 3, 1, variant));
      world.storage().detachEffect(detach);
      world
          .api()
          .create(
              new Volume(
                  ObjectMeta.named("data"),
                  new VolumeSpec(
                      WholeCluster.PLUGIN, 1 << 20, AccessMode.SingleNodeWriter, Map.of()),
                  VolumeStatus.EMPTY));
      task("first", "node-2");
      assertThat(run(() -> phase("first") == TaskPhase.Running, Duration.ofMinutes(2)))
          .as("first runs")
          .isTrue();
    }

    void cut(String node) {
      world.node(node).api.cut(true);
      // The node is lost after the grace; its task is marked failed and a replacement is made
      // elsewhere.
      assertThat(run(() -> phase("first") == TaskPhase.Failed, Duration.ofMinutes(3)))
          .as("first marked lost")
          .isTrue();
      task("second", "node-3");
    }

    void heal(String node) {
      world.node(node).api.cut(false);
    }

    void expectNoHandOver(Duration during) {
      run(() -> false, during);
      assertThat(violations).isEmpty();
      assertThat(phase("second")).isNotEqualTo(TaskPhase.Running);
      assertThat(claims()).extracting(VolumeClaim::task).containsExactly("first");
      var message = world.api().get(Kinds.TASK, "second").orElseThrow().status().message();
      assertThat(message).contains("held by task first (writer) on node-2");
    }

    void expectHandOver() {
      assertThat(run(() -> phase("second") == TaskPhase.Running, Duration.ofMinutes(5)))
          .as("second runs")
          .isTrue();
      assertThat(violations).isEmpty();
      assertThat(claims()).extracting(VolumeClaim::task).containsExactly("second");
      var id = world.api().get(Kinds.VOLUME, "data").orElseThrow().status().externalId();
      assertThat(world.storage().attachedTo(id)).containsExactly("node-3");
    }

    /**
     * {@code second} deleted; {@code third} writes on node-2 and is deleted; {@code fourth} on
     * node-3: whether {@code fourth} runs (the volume was released on node-2 after {@code third}).
     */
    boolean laterWritersGetTheVolume() {
      world.api().delete(Kinds.TASK, "second");
      task("third", "node-2");
      if (!run(() -> phase("third") == TaskPhase.Running, Duration.ofMinutes(5))) {
        return false;
      }
      world.api().delete(Kinds.TASK, "third");
      task("fourth", "node-3");
      return run(() -> phase("fourth") == TaskPhase.Running, Duration.ofMinutes(10));
    }

    List<VolumeClaim> claims() {
      return world.api().get(Kinds.VOLUME, "data").orElseThrow().status().claims();
    }

    void task(String name, String node) {
      var spec =
          new TaskSpec(
              Optional.of(node),
              List.of("sleep"),
              Map.of(),
              List.of(),
              List.of(VolumeUse.writer("data")),
              "exec",
              Optional.empty());
      world.api().create(new Task(ObjectMeta.named(name), spec, TaskStatus.EMPTY));
    }
  }
}
