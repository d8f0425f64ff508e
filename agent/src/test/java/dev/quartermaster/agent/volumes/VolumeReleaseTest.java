package dev.quartermaster.agent.volumes;

import static dev.quartermaster.agent.volumes.VolumeNode.NODE;
import static dev.quartermaster.agent.volumes.VolumeNode.staging;
import static dev.quartermaster.agent.volumes.VolumeNode.target;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.tasks.TaskSync;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumeClaim.Mode;
import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.csi.plugin.CsiCall;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's release step of the claim protocol ({@code Taken → NodeDetached} after NodeUnpublish
 * and NodeUnstage), in virtual time: never while the task's process still runs, whatever the store
 * says (I2; Nomad #26831), the staging path kept while another live claim here needs it, and
 * resumed by the next agent after a {@code kill -9} between the calls and the status write (I6).
 */
class VolumeReleaseTest {
  @TempDir Path tmp;
  private VolumeNode node;

  @BeforeEach
  void setUp() throws Exception {
    node = new VolumeNode(tmp);
  }

  @AfterEach
  void tearDown() throws Exception {
    node.close();
  }

  /** A task running on this node with volume {@code data} published. */
  private Task running(String name, String volume, Mode mode) {
    var t =
        node.task(name, mode == Mode.Write ? VolumeUse.writer(volume) : VolumeUse.reader(volume));
    node.grant(volume, t, NODE, mode, true);
    node.settle();
    assertThat(node.read(name).status().phase()).isEqualTo(TaskPhase.Running);
    return t;
  }

  private VolumeClaim.State state(String volume, Task t) {
    return node.claim(volume, t).orElseThrow().state();
  }

  /**
   * A release the plugin refuses is said on the volume (the operator's `describe volume`), and
   * retried.
   */
  @Test
  void aReleaseThatFailsIsAWarningOnTheVolumeAndIsRetried() {
    node.volume("data", AccessMode.SingleNodeWriter);
    var t = running("train-0", "data", Mode.Write);
    node.plugin.failNext(
        CsiCall.NodeUnstageVolume, dev.quartermaster.csi.plugin.CsiCode.FAILED_PRECONDITION);
    node.exit("train-0", 0);
    node.settle();
    assertThat(node.events)
        .anyMatch(
            e ->
                e.startsWith("Warning " + VolumeReleaser.RELEASE_FAILED + " volume/data ")
                    && e.contains("[train-0]")
                    && e.contains("NodeUnstageVolume")
                    && e.contains("FAILED_PRECONDITION"));
    node.settle(Duration.ofSeconds(5));
    assertThat(state("data", t))
        .as("released on the retry")
        .isEqualTo(VolumeClaim.State.NodeDetached);
  }

  /**
   * Issue 30, seed 3: a writer's node was fenced, so the controller freed its claim without the
   * node and only the node still has its publication. The agent unpublishes a target no claim names
   * and unstages the volume, and the next writer here is released in turn; an agent that knows only
   * the store's claims (the naive one) leaves the target, and every later release here fails on the
   * unstage for ever, holding the volume from every other writer.
   */
  @Test
  void aPublicationNoClaimNamesIsUnpublishedSoTheVolumeCanBeUnstagedAndHandedOver() {
    node.volume("sw", AccessMode.SingleNodeWriter);
    var fenced = running("w-0", "sw", Mode.Write);
    node.freeWithoutNode("sw", fenced);
    node.exit("w-0", 137); // the returning agent stopped the fenced task's process
    node.settle();
    assertThat(node.plugin.published).as("the fenced writer's target is gone").isEmpty();
    assertThat(node.log).contains("NodeUnstageVolume vol-sw " + VolumeNode.staging("sw"));

    var next = running("w-1", "sw", Mode.Write);
    node.exit("w-1", 0);
    node.settle();
    assertThat(state("sw", next))
        .as("the next writer is released")
        .isEqualTo(VolumeClaim.State.NodeDetached);
    assertThat(node.events).noneMatch(e -> e.contains(VolumeReleaser.RELEASE_FAILED));
  }

  @Test
  void theNaiveAgentThatKnowsOnlyTheStoresClaimsHoldsTheVolumeForEver() {
    node.seesPublications = false;
    node.restart();
    node.volume("sw", AccessMode.SingleNodeWriter);
    var fenced = running("w-0", "sw", Mode.Write);
    node.freeWithoutNode("sw", fenced);
    node.exit("w-0", 137);
    node.settle();
    var next = running("w-1", "sw", Mode.Write);
    node.exit("w-1", 0);
    node.settle(Duration.ofSeconds(30));
    assertThat(state("sw", next)).isEqualTo(VolumeClaim.State.Taken);
    assertThat(node.events)
        .anyMatch(
            e ->
                e.startsWith("Warning " + VolumeReleaser.RELEASE_FAILED + " volume/sw ")
                    && e.contains("still published"));
    // Said where the operator looks: on the claim (describe volume), and by the task waiting for
    // it.
    assertThat(node.claim("sw", next).orElseThrow().releaseError())
        .contains("NodeUnstageVolume")
        .contains("still published");
    node.task("w-2", VolumeUse.writer("sw"));
    node.settle();
    assertThat(node.read("w-2").status().message())
        .contains(
            "volume sw is held by task w-1 (writer) on "
                + NODE
                + "; its release there keeps failing: ")
        .contains("still published");
  }

  @Test
  void aDeletedTaskKeepsItsVolumeUntilItsProcessIsGone() {
    node.volume("data", AccessMode.SingleNodeWriter);
    var t = running("train-0", "data", Mode.Write);
    node.delete("train-0");
    node.settle(Duration.ofSeconds(30));
    assertThat(node.log).contains("kill train-0");
    assertThat(node.log).noneMatch(l -> l.startsWith("NodeUnpublishVolume"));
    assertThat(state("data", t)).isEqualTo(VolumeClaim.State.Taken);

    node.exit("train-0", 137);
    node.settle();
    assertThat(node.log)
        .endsWith(
            "NodeUnpublishVolume vol-data " + target(t, "data"),
            "NodeUnstageVolume vol-data " + staging("data"));
    assertThat(state("data", t)).isEqualTo(VolumeClaim.State.NodeDetached);
  }

  @Test
  void aTaskTheStoreEndedKeepsItsVolumeWhileItsProcessRuns() {
    node.volume("data", AccessMode.SingleNodeWriter);
    var t = running("train-0", "data", Mode.Write);
    // The node lifecycle marked it lost while this node was cut off: the store says Failed.
    var cur = node.read("train-0");
    var s = cur.status();
    node.api.updateStatus(
        cur.withStatus(
            new TaskStatus(
                TaskPhase.Failed,
                "NodeLost",
                "node-1 stopped heartbeating",
                s.node(),
                s.deviceCheck(),
                Optional.empty(),
                s.startedAt(),
                Optional.of(node.env.now()),
                s.conditions())));
    node.settle(Duration.ofSeconds(30));
    assertThat(node.log).contains("kill train-0");
    assertThat(node.log).noneMatch(l -> l.startsWith("NodeUnpublishVolume"));
    assertThat(state("data", t)).isEqualTo(VolumeClaim.State.Taken);

    node.exit("train-0", 137);
    node.settle();
    assertThat(state("data", t)).isEqualTo(VolumeClaim.State.NodeDetached);
    assertThat(node.log).contains("NodeUnpublishVolume vol-data " + target(t, "data"));
  }

  @Test
  void aFinishedTaskReleasesAfterItsExit() {
    node.volume("data", AccessMode.SingleNodeWriter);
    var t = running("train-0", "data", Mode.Write);
    node.settle(Duration.ofMinutes(5));
    assertThat(state("data", t)).isEqualTo(VolumeClaim.State.Taken); // I2 for its whole life

    node.exit("train-0", 0);
    node.settle();
    assertThat(node.read("train-0").status().phase()).isEqualTo(TaskPhase.Succeeded);
    assertThat(state("data", t)).isEqualTo(VolumeClaim.State.NodeDetached);
    assertThat(node.log)
        .endsWith(
            "NodeUnpublishVolume vol-data " + target(t, "data"),
            "NodeUnstageVolume vol-data " + staging("data"));
  }

  @Test
  void theStagingPathStaysWhileAnotherLiveClaimHereNeedsIt() {
    node.volume("weights", AccessMode.MultiNodeReaderOnly);
    var a = running("infer-0", "weights", Mode.Read);
    var b = running("infer-1", "weights", Mode.Read);
    assertThat(node.log).filteredOn(l -> l.startsWith("NodeStageVolume")).hasSize(1);

    node.exit("infer-0", 0);
    node.settle();
    assertThat(state("weights", a)).isEqualTo(VolumeClaim.State.NodeDetached);
    assertThat(state("weights", b)).isEqualTo(VolumeClaim.State.Taken);
    assertThat(node.log).contains("NodeUnpublishVolume vol-weights " + target(a, "weights"));
    assertThat(node.log).noneMatch(l -> l.startsWith("NodeUnstageVolume"));

    node.exit("infer-1", 0);
    node.settle();
    assertThat(state("weights", b)).isEqualTo(VolumeClaim.State.NodeDetached);
    assertThat(node.log)
        .endsWith(
            "NodeUnpublishVolume vol-weights " + target(b, "weights"),
            "NodeUnstageVolume vol-weights " + staging("weights"));
  }

  @Test
  void aCrashBetweenTheCallsAndTheStatusWriteIsResumedByTheNextAgent() {
    node.volume("data", AccessMode.SingleNodeWriter);
    var t = running("train-0", "data", Mode.Write);
    node.plugin.hold.add(CsiCall.NodeUnpublishVolume);
    node.exit("train-0", 0);
    node.settle();
    assertThat(node.log).noneMatch(l -> l.startsWith("NodeUnpublishVolume"));

    node.restart(); // kill -9 while NodeUnpublish is in flight
    node.plugin
        .releaseHeld(); // the plugin finishes it; the dead agent never writes the claim's step
    assertThat(node.log)
        .last()
        .asString()
        .isEqualTo("NodeUnpublishVolume vol-data " + target(t, "data"));
    assertThat(state("data", t)).isEqualTo(VolumeClaim.State.Taken);

    node.settle();
    assertThat(state("data", t)).isEqualTo(VolumeClaim.State.NodeDetached);
    assertThat(node.log)
        .filteredOn(l -> l.startsWith("NodeUnpublishVolume"))
        .hasSize(2); // idempotent, made again
    assertThat(node.log)
        .last()
        .asString()
        .isEqualTo("NodeUnstageVolume vol-data " + staging("data"));
  }

  @Test
  void aCrashBetweenUnpublishAndUnstageIsResumedByTheNextAgent() {
    node.volume("data", AccessMode.SingleNodeWriter);
    var t = running("train-0", "data", Mode.Write);
    node.plugin.hold.add(CsiCall.NodeUnstageVolume);
    node.exit("train-0", 0);
    node.settle();
    assertThat(node.log).last().asString().startsWith("NodeUnpublishVolume");

    node.restart();
    node.plugin.releaseHeld();
    node.settle();
    assertThat(state("data", t)).isEqualTo(VolumeClaim.State.NodeDetached);
    assertThat(node.log).filteredOn(l -> l.startsWith("NodeUnstageVolume")).hasSize(2);
  }

  @Test
  void aRestartedAgentReleasesTheClaimsOfTheTasksItStoppedAtStart() {
    node.volume("data", AccessMode.SingleNodeWriter);
    var t = running("train-0", "data", Mode.Write);
    node.restart(); // the new agent stops the process it cannot follow and fails the task
    node.settle();
    assertThat(node.read("train-0").status().reason()).isEqualTo("AgentRestarted");
    assertThat(state("data", t)).isEqualTo(VolumeClaim.State.NodeDetached);
    assertThat(node.log).contains("NodeUnpublishVolume vol-data " + target(t, "data"));
  }

  @Test
  void aStartThatTakesAWhileIsSaidAndARestartedAgentNeverRunsItAgain() {
    node.volume("data", AccessMode.SingleNodeWriter);
    node.holdChecks = true; // the process is started; its check has not passed (an image pull, say)
    var t = node.task("train-0", VolumeUse.writer("data"));
    node.grant("data", t, NODE, Mode.Write, true);
    node.settle(Duration.ofMillis(500));
    assertThat(node.log)
        .containsOnlyOnce("start train-0 {QM_VOLUME_DATA=" + target(t, "data") + "}");
    // A quick start writes nothing between the wait and Running: the status has not moved yet.
    assertThat(node.read("train-0").status().phase()).isEqualTo(TaskPhase.Preparing);
    assertThat(node.read("train-0").status().reason()).isNotEqualTo("Starting");
    node.settle(TaskSync.STARTING_SAID_AFTER);
    assertThat(node.read("train-0").status().reason()).isEqualTo("Starting");
    assertThat(node.read("train-0").status().message()).endsWith("starting with the exec runtime");

    node.restart(); // its process is found by its record and stopped: the task is not started again
    node.settle();
    assertThat(node.read("train-0").status().reason()).isEqualTo("AgentRestarted");
    assertThat(node.log).filteredOn(l -> l.startsWith("start train-0")).hasSize(1);
  }

  /**
   * The allocator schedules a task before its claims are prepared anywhere: a wait of milliseconds
   * is not written.
   */
  @Test
  void aShortWaitForClaimsWritesNothingAndALongOneIsSaid() {
    node.taskWithClaims("train-0", List.of("train-0-gpu"));
    node.settle(TaskSync.CLAIMS_WAIT_SAID_AFTER.minusMillis(200));
    assertThat(node.read("train-0").status().phase())
        .as("nothing written yet")
        .isEqualTo(TaskPhase.Scheduled);
    node.settle(Duration.ofMillis(400));
    assertThat(node.read("train-0").status().phase()).isEqualTo(TaskPhase.Preparing);
    assertThat(node.read("train-0").status().reason()).isEqualTo("WaitingForClaims");
    assertThat(node.read("train-0").status().message())
        .isEqualTo("waiting for claim train-0-gpu: not found");
    assertThat(node.log).isEmpty();
  }

  @Test
  void aTaskDeletedOnAStaleViewNeverStarts() {
    node.holdChecks = true;
    var stale = node.task("train-0");
    node.taskSyncView =
        name -> Optional.of(stale); // the task sync's cache has not seen the delete yet
    node.delete("train-0");
    node.settle();
    assertThat(node.log).isEmpty();
  }

  @Test
  void aProcessStartedBeforeAnyStatusWriteIsNotRunAgainByARestartedAgent() {
    node.holdChecks = true;
    node.task("train-0");
    node.settle(Duration.ofMillis(500));
    assertThat(node.log).containsExactly("start train-0");
    assertThat(node.read("train-0").status().phase())
        .isEqualTo(TaskPhase.Scheduled); // nothing written yet

    node.restart();
    node.settle();
    assertThat(node.read("train-0").status().phase()).isEqualTo(TaskPhase.Failed);
    assertThat(node.read("train-0").status().reason()).isEqualTo("AgentRestarted");
    assertThat(node.log).containsExactly("start train-0");
  }

  @Test
  void theClaimOfAnEarlierIncarnationIsReleasedAndTheNewOneWaitsForItsOwn() {
    node.volume("data", AccessMode.SingleNodeWriter);
    var old = running("train-0", "data", Mode.Write);
    node.exit("train-0", 1);
    node.plugin.hold.add(CsiCall.NodeUnpublishVolume); // keep the old claim Taken a moment
    node.settle(Duration.ofMillis(500));
    node.delete("train-0");
    var fresh = node.task("train-0", VolumeUse.writer("data"));
    node.settle(Duration.ofMillis(500));
    assertThat(node.read("train-0").status().message())
        .isEqualTo("volume data is held by task train-0 (writer) on node-1");

    node.plugin.releaseHeld();
    node.settle();
    assertThat(state("data", old)).isEqualTo(VolumeClaim.State.NodeDetached);
    assertThat(node.claim("data", fresh)).isEmpty();
    assertThat(node.read("train-0").status().message())
        .isEqualTo(
            "volume data is held by task train-0 (writer) on node-1"); // until the controller frees
    // it
  }

  @Test
  void aClaimForATaskTheCacheHasNotSeenYetIsNotReleased() {
    node.taskCache =
        name -> Optional.empty(); // the informer lags behind the volume controller's grant
    node.restart();
    node.volume("data", AccessMode.SingleNodeWriter);
    var t = node.task("train-0", VolumeUse.writer("data"));
    node.grant("data", t, NODE, Mode.Write, true);
    node.settle();
    assertThat(state("data", t)).isEqualTo(VolumeClaim.State.Taken);
    assertThat(node.read("train-0").status().phase()).isEqualTo(TaskPhase.Running);
  }

  @Test
  void aConflictingWriteIsReadAgainAndKept() {
    node.volume("data", AccessMode.SingleNodeWriter);
    var t = running("train-0", "data", Mode.Write);
    var raced = new AtomicBoolean();
    // The volume controller writes the Volume's status between the releaser's read and its write.
    node.agentApi =
        real ->
            (ApiClient)
                Proxy.newProxyInstance(
                    ApiClient.class.getClassLoader(),
                    new Class<?>[] {ApiClient.class},
                    (proxy, method, args) -> {
                      if (method.getName().equals("updateStatus")
                          && args[0] instanceof Volume
                          && raced.compareAndSet(false, true)) {
                        var v = real.get(Kinds.VOLUME, "data").orElseThrow();
                        real.updateStatus(
                            v.withStatus(
                                v.status()
                                    .withConditions(
                                        List.of(
                                            new Condition(
                                                "Ready",
                                                Condition.Status.True,
                                                "Created",
                                                "",
                                                Optional.of(node.env.now()))))));
                      }
                      try {
                        return method.invoke(real, args);
                      } catch (InvocationTargetException e) {
                        throw e.getCause();
                      }
                    });
    node.restart(); // the AgentRestarted path: the new agent stops the process and releases
    node.settle();
    assertThat(raced).isTrue();
    assertThat(state("data", t)).isEqualTo(VolumeClaim.State.NodeDetached);
    assertThat(node.api.get(Kinds.VOLUME, "data").orElseThrow().status().conditions())
        .extracting(Condition::type)
        .containsExactly("Ready");
  }

  /**
   * Two guards stand here: the start's retired-claim check ({@link
   * VolumeMounts#startUnlessReleased}) and the live read that must find the task as the stale view
   * has it; either keeps the process from starting on a released volume.
   */
  @Test
  void aTaskDeletedWhileItsVolumeIsPublishedNeverStartsOnAStaleView() {
    node.volume("data", AccessMode.SingleNodeWriter);
    var t = node.task("train-0", VolumeUse.writer("data"));
    node.grant("data", t, NODE, Mode.Write, true);
    node.plugin.hold.add(CsiCall.NodePublishVolume);
    node.settle();
    assertThat(node.log).containsExactly("NodeStageVolume vol-data " + staging("data"));

    var stale = node.read("train-0");
    node.taskSyncView =
        name -> Optional.of(stale); // the task sync's cache has not seen the delete yet
    node.delete("train-0"); // the releaser reads afresh: gone, and no process runs for it
    node.settle();
    node.plugin.releaseHeld(); // the publish that was already running completes
    node.settle();

    assertThat(node.log).noneMatch(l -> l.startsWith("start"));
    assertThat(state("data", t)).isEqualTo(VolumeClaim.State.NodeDetached);
    assertThat(node.log)
        .endsWith(
            "NodePublishVolume vol-data " + target(t, "data"),
            "NodeUnpublishVolume vol-data " + target(t, "data"),
            "NodeUnstageVolume vol-data " + staging("data"));
  }

  @Test
  void aClaimNeverAttachedIsDetachedWithoutNodeCalls() {
    node.volume("data", AccessMode.SingleNodeWriter);
    var t = node.task("train-0", VolumeUse.writer("data"));
    node.grant("data", t, NODE, Mode.Write, false);
    node.settle();
    node.delete("train-0");
    node.settle();
    assertThat(state("data", t)).isEqualTo(VolumeClaim.State.NodeDetached);
    assertThat(node.log).isEmpty();
  }
}
