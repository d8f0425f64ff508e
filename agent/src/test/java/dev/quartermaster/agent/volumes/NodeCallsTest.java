package dev.quartermaster.agent.volumes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.plugins.NodePlugin;
import dev.quartermaster.agent.plugins.NodePlugins;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.PluginInstance;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumePhase;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.core.serial.KeyedSerializer;
import dev.quartermaster.csi.plugin.CsiCall;
import dev.quartermaster.csi.plugin.CsiCode;
import dev.quartermaster.csi.plugin.CsiException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The retirement of a released claim, below the task and volume syncs. */
class NodeCallsTest {

  @Test
  void aRetiredClaimIsNeverPublishedNorItsTaskStarted() {
    var env = new DeterministicEnv(3);
    var log = new ArrayList<String>();
    var calls = new NodeCalls(new VolumePaths(Path.of("/state")), new KeyedSerializer<>(env));
    var plugin = new FakeCsiPlugin(env, log);
    var nodePlugin =
        new NodePlugin(
            new PluginInstance(FakeCsiPlugin.NAME, "unix:///p.sock", "1", Set.of(), true, "", "n1"),
            plugin.info,
            plugin);
    var volume =
        new Volume(
            ObjectMeta.named("data"),
            new VolumeSpec(FakeCsiPlugin.NAME, 1, null, Map.of()),
            new VolumeStatus(VolumePhase.Available, "vol-data", 1, List.of(), List.of()));
    var claim =
        new VolumeClaim(
            "train-0",
            "uid-1",
            "node-1",
            VolumeClaim.Mode.Write,
            VolumeClaim.State.Taken,
            true,
            Map.of());
    var task =
        new Task(
            ObjectMeta.named("train-0").withUid("uid-1"),
            new TaskSpec(
                Optional.of("node-1"),
                List.of("x"),
                Map.of(),
                List.of(),
                List.of(VolumeUse.writer("data")),
                "exec",
                Optional.empty()),
            TaskStatus.EMPTY);
    var noPlugins =
        new NodePlugins() {
          @Override
          public Optional<NodePlugin> nodePlugin(String name) {
            return Optional.empty();
          }

          @Override
          public String whyNot(String name) {
            return "none";
          }

          @Override
          public void probeSoon() {}
        };
    var mounts =
        new VolumeMounts("node-1", name -> Optional.of(volume), noPlugins, calls, t -> {}, v -> {});

    assertThat(mounts.startUnlessReleased(task, () -> "started")).contains("started");
    calls.exclusively(
        () -> {
          calls.retire("data", "uid-1");
          return null;
        });
    assertThat(mounts.startUnlessReleased(task, () -> "started")).isEmpty();

    var publish = calls.publish(volume, claim, false, nodePlugin).toCompletableFuture();
    env.runUntilIdle();
    assertThat(publish).isCompletedExceptionally();
    assertThat(
            publish.handle((v, e) -> CsiException.of(CsiCall.NodePublishVolume, e).code()).join())
        .isEqualTo(CsiCode.FAILED_PRECONDITION);
    assertThat(log).isEmpty();
  }
}
