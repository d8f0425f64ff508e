package dev.quartermaster.cli.describe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.meta.Condition;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.Node;
import dev.quartermaster.api.node.NodeSpec;
import dev.quartermaster.api.node.NodeStatus;
import dev.quartermaster.api.node.PluginInstance;
import dev.quartermaster.api.node.PluginRole;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumePhase;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.core.env.DeterministicEnv;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VolumeDescriberTest {
  private static final String PLUGIN = "hostpath.csi.quartermaster.dev";

  @TempDir Path dir;

  @Test
  void eachClaimShowsItsStepAndWhatItsReleaseWaitsFor() {
    try (var store = SqliteStore.open(dir.resolve("store.db"))) {
      var api = new ObjectRegistry(store, new DeterministicEnv(1));
      // Created Running (a create is no move of its phase; Pending → Running is refused).
      var reader =
          api.create(
              new Task(
                  ObjectMeta.named("eval-0"),
                  new TaskSpec(
                      Optional.empty(),
                      List.of("eval"),
                      Map.of(),
                      List.of(),
                      List.of(),
                      "exec",
                      Optional.empty()),
                  new TaskStatus(
                      TaskPhase.Running,
                      "",
                      "",
                      Optional.of("node-1"),
                      Optional.empty(),
                      Optional.empty(),
                      Optional.empty(),
                      Optional.empty(),
                      List.of())));
      var plugin =
          new PluginInstance(
              PLUGIN,
              "unix:///run/qm/csi/hostpath.sock",
              "0.3.0",
              Set.of(PluginRole.Controller, PluginRole.Node),
              true,
              "",
              "node-1");
      var n1 = api.create(new Node(ObjectMeta.named("node-1"), NodeSpec.EMPTY, NodeStatus.EMPTY));
      api.updateStatus(n1.withStatus(NodeStatus.EMPTY.withPlugins(List.of(plugin))));
      var n3 = api.create(new Node(ObjectMeta.named("node-3"), NodeSpec.EMPTY, NodeStatus.EMPTY));
      api.updateStatus(
          n3.withStatus(
              new NodeStatus(
                  List.of(
                      new Condition(
                          "AgentReady",
                          Condition.Status.False,
                          "HeartbeatMissed",
                          "",
                          Optional.of(Instant.parse("2026-03-01T12:04:00Z")))),
                  Optional.empty(),
                  "",
                  "",
                  List.of())));
      var claims =
          List.of(
              new VolumeClaim(
                  "eval-0",
                  reader.metadata().uid(),
                  "node-1",
                  VolumeClaim.Mode.Read,
                  VolumeClaim.State.Taken,
                  true,
                  Map.of()),
              new VolumeClaim(
                  "train-0",
                  "gone-uid",
                  "node-3",
                  VolumeClaim.Mode.Write,
                  VolumeClaim.State.Taken,
                  true,
                  Map.of()),
              new VolumeClaim(
                  "train-1",
                  "gone-uid-2",
                  "node-1",
                  VolumeClaim.Mode.Write,
                  VolumeClaim.State.NodeDetached,
                  true,
                  Map.of()));
      var volume =
          new Volume(
              ObjectMeta.named("data"),
              new VolumeSpec(
                  PLUGIN,
                  1L << 30,
                  VolumeSpec.AccessMode.MultiNodeMultiWriter,
                  Map.of("fsType", "ext4")),
              new VolumeStatus(VolumePhase.Available, "vol-7", 1L << 30, claims, List.of()));

      var text =
          Describers.describe(
              volume, new DescribeContext(api, Instant.parse("2026-03-01T12:10:00Z")));

      assertThat(text)
          .contains("Access Mode:", "MultiNodeMultiWriter")
          .contains("fsType=ext4")
          .contains("Releasing (volume Available)")
          .contains("1/2 (readers/writers)");
      assertThat(text.lines().filter(l -> l.contains("eval-0")).findFirst().orElseThrow())
          .contains("Read")
          .contains("Taken (attached)")
          .endsWith("<none>");
      assertThat(text.lines().filter(l -> l.contains("train-0")).findFirst().orElseThrow())
          .contains(
              "node-3 to unpublish; node-3 NotReady since 2026-03-01T12:04:00Z (6m ago) (HeartbeatMissed); "
                  + "if node-3 is down, `qm node fence node-3` releases it");
      assertThat(text.lines().filter(l -> l.contains("train-1")).findFirst().orElseThrow())
          .contains("NodeDetached")
          .contains(
              "ControllerUnpublish through plugin hostpath.csi.quartermaster.dev (instance on node-1)");
    }
  }
}
