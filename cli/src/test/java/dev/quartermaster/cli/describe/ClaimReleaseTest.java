package dev.quartermaster.cli.describe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.api.node.PluginInstance;
import dev.quartermaster.api.node.PluginRole;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeClaim.Mode;
import dev.quartermaster.api.volume.VolumeClaim.State;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ClaimReleaseTest {
  private static final Instant NOW = Instant.parse("2026-03-01T12:10:00Z");
  private static final String PLUGIN = "hostpath.csi.quartermaster.dev";

  @Test
  void aClaimHeldByItsRunningTaskWaitsForNothingOnceAttached() {
    var task = task("train-0", "uid-1", TaskPhase.Running, false);
    var attached = attached(State.Taken);
    assertThat(
            ClaimRelease.waitingFor(
                attached, PLUGIN, Optional.of(task), Optional.of(ready("node-3")), List.of(), NOW))
        .isEmpty();
    assertThat(
            ClaimRelease.waitingFor(
                claim(State.Taken),
                PLUGIN,
                Optional.of(task),
                Optional.of(ready("node-3")),
                List.of(withController("node-1", true, "")),
                NOW))
        .isEqualTo(
            "ControllerPublish to node-3 through plugin hostpath.csi.quartermaster.dev (instance on node-1)");
  }

  @Test
  void aGoneTaskOnANotReadyNodeSaysSinceWhenAndHowToFenceIt() {
    var lost =
        new Node(
            ObjectMeta.named("node-3"),
            NodeSpec.EMPTY,
            new NodeStatus(
                List.of(
                    new Condition(
                        "AgentReady",
                        Condition.Status.False,
                        "HeartbeatMissed",
                        "no heartbeat for 40s",
                        Optional.of(Instant.parse("2026-03-01T12:04:00Z")))),
                Optional.empty(),
                "",
                "",
                List.of()));
    var text =
        ClaimRelease.waitingFor(
            claim(State.Taken), PLUGIN, Optional.empty(), Optional.of(lost), List.of(), NOW);
    assertThat(text)
        .isEqualTo(
            "node-3 to unpublish; node-3 NotReady since 2026-03-01T12:04:00Z (6m ago) (HeartbeatMissed); "
                + "if node-3 is down, `qm node fence node-3` releases it");
  }

  /**
   * Issue 30, seed 3: a release the plugin keeps refusing says so where the operator looks, with
   * the plugin's words.
   */
  @Test
  void aReleaseThatKeepsFailingSaysThePluginsAnswer() {
    var failing =
        new VolumeClaim(
            "train-0",
            "uid-1",
            "node-3",
            Mode.Write,
            State.Taken,
            false,
            Map.of(),
            "NodeUnstageVolume: FAILED_PRECONDITION: volume v is still published");
    assertThat(
            ClaimRelease.waitingFor(
                failing, PLUGIN, Optional.empty(), Optional.of(ready("node-3")), List.of(), NOW))
        .isEqualTo(
            "node-3 to unpublish (its agent runs NodeUnpublish and NodeUnstage); its release there keeps failing: "
                + "NodeUnstageVolume: FAILED_PRECONDITION: volume v is still published");
  }

  @Test
  void aReplacedTaskOfTheSameNameDoesNotHoldTheOldIncarnationsClaim() {
    var successor = task("train-0", "uid-2", TaskPhase.Running, false);
    assertThat(
            ClaimRelease.waitingFor(
                claim(State.Taken),
                PLUGIN,
                Optional.of(successor),
                Optional.of(ready("node-3")),
                List.of(),
                NOW))
        .isEqualTo("node-3 to unpublish (its agent runs NodeUnpublish and NodeUnstage)");
    var finished = task("train-0", "uid-1", TaskPhase.Succeeded, false);
    assertThat(
            ClaimRelease.waitingFor(
                claim(State.Taken),
                PLUGIN,
                Optional.of(finished),
                Optional.of(ready("node-3")),
                List.of(),
                NOW))
        .startsWith("node-3 to unpublish");
  }

  @Test
  void aFencedOrMissingNode() {
    var fenced = new Node(ObjectMeta.named("node-3"), new NodeSpec(true, true), NodeStatus.EMPTY);
    assertThat(
            ClaimRelease.waitingFor(
                claim(State.Taken), PLUGIN, Optional.empty(), Optional.of(fenced), List.of(), NOW))
        .isEqualTo("the volume controller to mark it NodeDetached (node-3 is fenced)");
    assertThat(
            ClaimRelease.waitingFor(
                claim(State.Taken), PLUGIN, Optional.empty(), Optional.empty(), List.of(), NOW))
        .startsWith("node-3 to unpublish; node node-3 does not exist");
  }

  @Test
  void controllerUnpublishNamesTheInstanceOrWhyThereIsNone() {
    var detached = attached(State.NodeDetached);
    var nodes =
        List.of(
            withController("node-2", true, ""),
            withController("node-1", false, "Probe: UNAVAILABLE"),
            withController("node-0", true, ""));
    assertThat(
            ClaimRelease.waitingFor(
                detached, PLUGIN, Optional.empty(), Optional.empty(), nodes, NOW))
        .isEqualTo(
            "ControllerUnpublish through plugin hostpath.csi.quartermaster.dev (instance on node-0)");
    assertThat(
            ClaimRelease.waitingFor(
                detached,
                PLUGIN,
                Optional.empty(),
                Optional.empty(),
                List.of(withController("node-1", false, "Probe: UNAVAILABLE")),
                NOW))
        .isEqualTo(
            "ControllerUnpublish through plugin hostpath.csi.quartermaster.dev: no healthy controller instance "
                + "(node-1: Probe: UNAVAILABLE)");
    assertThat(
            ClaimRelease.waitingFor(
                detached, "nfs.csi.example.com", Optional.empty(), Optional.empty(), nodes, NOW))
        .isEqualTo(
            "ControllerUnpublish through plugin nfs.csi.example.com: no node reports a controller instance of it "
                + "(see `qm get plugins`)");
    assertThat(
            ClaimRelease.waitingFor(
                claim(State.NodeDetached), PLUGIN, Optional.empty(), Optional.empty(), nodes, NOW))
        .contains("never attached");
    assertThat(
            ClaimRelease.waitingFor(
                claim(State.ControllerDetached),
                PLUGIN,
                Optional.empty(),
                Optional.empty(),
                nodes,
                NOW))
        .isEqualTo("the volume controller to free it");
  }

  private static VolumeClaim claim(State state) {
    return new VolumeClaim("train-0", "uid-1", "node-3", Mode.Write, state, false, Map.of());
  }

  private static VolumeClaim attached(State state) {
    return new VolumeClaim("train-0", "uid-1", "node-3", Mode.Write, state, true, Map.of());
  }

  private static Task task(String name, String uid, TaskPhase phase, boolean deleting) {
    var meta = ObjectMeta.named(name).withUid(uid);
    return new Task(
        deleting ? meta.withDeletedAt(NOW) : meta,
        TaskSpec.EMPTY,
        new TaskStatus(
            phase,
            "",
            "",
            Optional.of("node-3"),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            List.of()));
  }

  private static Node ready(String name) {
    return new Node(
        ObjectMeta.named(name),
        NodeSpec.EMPTY,
        new NodeStatus(
            List.of(new Condition("AgentReady", Condition.Status.True, "", "", Optional.of(NOW))),
            Optional.of(NOW),
            "",
            "",
            List.of()));
  }

  private static Node withController(String name, boolean healthy, String message) {
    var p =
        new PluginInstance(
            PLUGIN,
            "unix:///run/qm/csi/hostpath.sock",
            "0.3.0",
            Set.of(PluginRole.Controller, PluginRole.Node),
            healthy,
            message,
            name);
    return new Node(
        ObjectMeta.named(name), NodeSpec.EMPTY, NodeStatus.EMPTY.withPlugins(List.of(p)));
  }
}
