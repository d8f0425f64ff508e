package dev.quartermaster.agent.volumes;

import static dev.quartermaster.agent.volumes.VolumeNode.NODE;
import static dev.quartermaster.agent.volumes.VolumeNode.staging;
import static dev.quartermaster.agent.volumes.VolumeNode.target;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.volume.VolumeClaim.Mode;
import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.csi.plugin.Capability;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.PluginInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task's volumes on its node, in virtual time: stage → publish → start, in that order; nothing
 * starts before every volume is published; and while it cannot start, the task's status names
 * exactly what it waits for (I2 from the first instant of the process).
 */
class VolumePublishTest {
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

  @Test
  void stagesThenPublishesThenStartsWithTheTargetInItsEnvironment() {
    node.volume("data", AccessMode.SingleNodeWriter);
    var t = node.task("train-0", VolumeUse.writer("data"));
    node.grant("data", t, NODE, Mode.Write, true);
    node.settle();

    assertThat(node.log)
        .containsExactly(
            "NodeStageVolume vol-data " + staging("data"),
            "NodePublishVolume vol-data " + target(t, "data"),
            "start train-0 {QM_VOLUME_DATA=" + target(t, "data") + "}");
    assertThat(node.read("train-0").status().phase()).isEqualTo(TaskPhase.Running);
  }

  @Test
  void podmanGetsAReadOnlyBindMountUnderVolumesByItsMountName() {
    node.volume("data", AccessMode.MultiNodeReaderOnly);
    var t = node.task("infer-0", "podman", VolumeUse.of("data", true, "weights"));
    assertThat(t.spec().image()).isPresent();
    node.grant("data", t, NODE, Mode.Read, true);
    node.settle();

    assertThat(node.log)
        .last()
        .asString()
        .isEqualTo(
            "start infer-0 [Mount[hostPath="
                + target(t, "data")
                + ", containerPath=/volumes/weights, readOnly=true]]");
    assertThat(node.log).contains("NodePublishVolume vol-data " + target(t, "data") + " ro");
  }

  @Test
  void aPluginWithoutStagingIsOnlyPublished() {
    node.plugin.info =
        new PluginInfo(FakeCsiPlugin.NAME, "1", Set.of(Capability.ControllerService), Set.of());
    node.volume("data", AccessMode.SingleNodeWriter);
    var t = node.task("train-0", VolumeUse.writer("data"));
    node.grant("data", t, NODE, Mode.Write, true);
    node.settle();

    assertThat(node.log)
        .containsExactly(
            "NodePublishVolume vol-data " + target(t, "data"),
            "start train-0 {QM_VOLUME_DATA=" + target(t, "data") + "}");
  }

  @Test
  void nothingStartsWhilePublishIsInFlight() {
    node.plugin.hold.add(CsiCall.NodePublishVolume);
    node.volume("data", AccessMode.SingleNodeWriter);
    var t = node.task("train-0", VolumeUse.writer("data"));
    node.grant("data", t, NODE, Mode.Write, true);
    node.settle(Duration.ofSeconds(30));

    assertThat(node.log).containsExactly("NodeStageVolume vol-data " + staging("data"));
    var waiting = node.read("train-0").status();
    assertThat(waiting.phase()).isEqualTo(TaskPhase.Preparing);
    assertThat(waiting.reason()).isEqualTo(VolumeMounts.WAITING);
    assertThat(waiting.message()).isEqualTo("publishing volume data on node-1");

    node.plugin.releaseHeld();
    node.settle();
    assertThat(node.log)
        .endsWith(
            "NodePublishVolume vol-data " + target(t, "data"),
            "start train-0 {QM_VOLUME_DATA=" + target(t, "data") + "}");
  }

  @Test
  void everyVolumeIsPublishedBeforeTheStart() {
    node.volume("data", AccessMode.SingleNodeWriter);
    node.volume("weights", AccessMode.MultiNodeReaderOnly);
    var t = node.task("train-0", VolumeUse.writer("data"), VolumeUse.reader("weights"));
    node.grant("data", t, NODE, Mode.Write, true);
    node.grant("weights", t, NODE, Mode.Read, false); // not attached yet
    node.settle();
    assertThat(node.log).noneMatch(l -> l.startsWith("start"));
    assertThat(node.read("train-0").status().message())
        .isEqualTo("waiting for ControllerPublish of weights to node-1");

    node.grant("weights", t, NODE, Mode.Read, true);
    node.settle();
    assertThat(node.log).last().asString().startsWith("start train-0");
    assertThat(node.log.indexOf("NodePublishVolume vol-weights " + target(t, "weights") + " ro"))
        .isLessThan(node.log.size() - 1);
  }

  @Test
  void writingAReadOnlyVolumeSaysToMountItReadOnlyInsteadOfWaitingSilently() {
    node.volume("weights", AccessMode.MultiNodeReaderOnly);
    node.task("train-0", VolumeUse.writer("weights"));
    node.settle();

    assertThat(waiting())
        .isEqualTo(
            "volume weights is read-only (MultiNodeReaderOnly) and this task writes it; use it"
                + " with readOnly: true, e.g. volumes: [{name: weights, readOnly: true}]");
  }

  @Test
  void eachWaitNamesItsCause() {
    var t = node.task("train-0", VolumeUse.writer("data"));
    node.settle();
    assertThat(waiting()).isEqualTo("volume data does not exist");

    node.volume("data", AccessMode.SingleNodeWriter);
    node.settle();
    assertThat(waiting())
        .isEqualTo("waiting for the volume controller to grant the claim on volume data");

    var other = node.task("eval-0");
    node.grant("data", other, "node-3", Mode.Write, true);
    node.settle();
    assertThat(waiting()).isEqualTo("volume data is held by task eval-0 (writer) on node-3");

    node.grant("data", t, NODE, Mode.Write, false);
    node.settle();
    assertThat(waiting()).isEqualTo("waiting for ControllerPublish of data to node-1");

    node.endpoints.remove(VolumeNode.ENDPOINT);
    node.settle(Duration.ofSeconds(35)); // a probe round finds it gone
    node.grant("data", t, NODE, Mode.Write, true);
    node.settle();
    assertThat(waiting())
        .isEqualTo(
            "volume data: CSI plugin " + FakeCsiPlugin.NAME + " is not running on node node-1");

    node.endpoints.put(VolumeNode.ENDPOINT, node.plugin);
    node.plugin.ready = false;
    node.settle(Duration.ofSeconds(35));
    assertThat(waiting())
        .isEqualTo(
            "volume data: CSI plugin "
                + FakeCsiPlugin.NAME
                + " on node node-1 is unhealthy: Probe: the plugin says it is not ready");
    assertThat(node.log).noneMatch(l -> l.startsWith("Node") || l.contains("train-0"));

    node.plugin.ready = true;
    node.settle(Duration.ofSeconds(10)); // an unhealthy plugin is probed again soon
    assertThat(node.read("train-0").status().phase()).isEqualTo(TaskPhase.Running);
  }

  @Test
  void aFailedCallNamesTheCallAndItsCodeAndTheTaskWaits() {
    node.plugin.failNext(CsiCall.NodePublishVolume, CsiCode.INVALID_ARGUMENT);
    node.volume("data", AccessMode.SingleNodeWriter);
    var t = node.task("train-0", VolumeUse.writer("data"));
    node.grant("data", t, NODE, Mode.Write, true);
    node.settle(Duration.ofMillis(500));

    var s = node.read("train-0").status();
    assertThat(s.phase()).isEqualTo(TaskPhase.Preparing);
    assertThat(s.message()).isEqualTo("volume data: NodePublishVolume: INVALID_ARGUMENT: injected");
    assertThat(node.log).containsExactly("NodeStageVolume vol-data " + staging("data"));

    node.settle(); // the recheck calls again; the stage done before is not repeated
    assertThat(node.log)
        .containsExactly(
            "NodeStageVolume vol-data " + staging("data"),
            "NodePublishVolume vol-data " + target(t, "data"),
            "start train-0 {QM_VOLUME_DATA=" + target(t, "data") + "}");
  }

  @Test
  void aRetryableFailureIsRetriedWithBackoff() {
    node.plugin.failNext(CsiCall.NodeStageVolume, CsiCode.UNAVAILABLE);
    node.plugin.failNext(CsiCall.NodeStageVolume, CsiCode.ABORTED);
    node.volume("data", AccessMode.SingleNodeWriter);
    var t = node.task("train-0", VolumeUse.writer("data"));
    node.grant("data", t, NODE, Mode.Write, true);
    node.settle();

    assertThat(node.log)
        .containsExactly(
            "NodeStageVolume vol-data " + staging("data"),
            "NodePublishVolume vol-data " + target(t, "data"),
            "start train-0 {QM_VOLUME_DATA=" + target(t, "data") + "}");
  }

  @Test
  void oneNodeCallPerVolumeAtATime() {
    node.volume("weights", AccessMode.MultiNodeReaderOnly);
    var tasks =
        List.of(
            node.task("infer-0", VolumeUse.reader("weights")),
            node.task("infer-1", VolumeUse.reader("weights")),
            node.task("infer-2", VolumeUse.reader("weights")));
    tasks.forEach(t -> node.grant("weights", t, NODE, Mode.Read, true));
    node.settle();

    assertThat(node.plugin.maxInFlightPerVolume).isEqualTo(1);
    assertThat(node.log).filteredOn(l -> l.startsWith("NodeStageVolume")).hasSize(1);
    assertThat(node.log).filteredOn(l -> l.startsWith("start")).hasSize(3);
  }

  private String waiting() {
    var s = node.read("train-0").status();
    assertThat(s.phase()).isEqualTo(TaskPhase.Preparing);
    assertThat(s.reason()).isEqualTo(VolumeMounts.WAITING);
    return s.message();
  }
}
