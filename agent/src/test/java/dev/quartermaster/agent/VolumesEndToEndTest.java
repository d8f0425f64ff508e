package dev.quartermaster.agent;

import static dev.quartermaster.agent.AgentFixture.NODE;
import static dev.quartermaster.agent.AgentFixture.phaseIs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.devices.DeviceRoot;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.meta.ObjectMeta;
import dev.quartermaster.api.node.PluginInstance;
import dev.quartermaster.api.node.PluginRole;
import dev.quartermaster.api.volume.Volume;
import dev.quartermaster.api.volume.VolumeClaim;
import dev.quartermaster.api.volume.VolumePhase;
import dev.quartermaster.api.volume.VolumeSpec;
import dev.quartermaster.api.volume.VolumeSpec.AccessMode;
import dev.quartermaster.api.volume.VolumeStatus;
import dev.quartermaster.api.volume.VolumeUse;
import dev.quartermaster.api.workload.DeviceLossPolicy;
import dev.quartermaster.api.workload.Task;
import dev.quartermaster.api.workload.TaskPhase;
import dev.quartermaster.api.workload.TaskSpec;
import dev.quartermaster.api.workload.TaskStatus;
import dev.quartermaster.core.env.SystemEnv;
import dev.quartermaster.csi.plugin.Capability;
import dev.quartermaster.csi.plugin.CreatedVolume;
import dev.quartermaster.csi.plugin.CsiPlugin;
import dev.quartermaster.csi.plugin.NodeInfo;
import dev.quartermaster.csi.plugin.PluginInfo;
import dev.quartermaster.store.registry.ObjectRegistry;
import dev.quartermaster.store.sqlite.SqliteStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's volume wiring through its real informers and queues on real threads: the plugin
 * socket found in the plugin directory is probed into {@code Node.status.plugins}; a task granted
 * an attached claim runs with {@code QM_VOLUME_DATA} pointing at the published path, and once its
 * process has exited its claim is released ({@code NodeDetached}) after NodeUnpublish and
 * NodeUnstage.
 */
class VolumesEndToEndTest {
  private static final String PLUGIN = "instant.csi.quartermaster.dev";

  @TempDir Path tmp;
  private SqliteStore store;
  private ApiClient api;
  private NodeAgent agent;
  private final List<String> calls = new CopyOnWriteArrayList<>();
  private String endpoint;

  @BeforeEach
  void setUp() throws Exception {
    store = SqliteStore.open(tmp.resolve("store.db"));
    api = ObjectRegistry.withoutCrossObjectRules(store, new SystemEnv());
    var sim = SimulatedDeviceRoot.builder(tmp.resolve("devroot")).gpus(1).build();
    var plugins = Files.createDirectories(tmp.resolve("plugins"));
    var socket =
        Files.createFile(plugins.resolve("instant.sock")); // only its name matters to discovery
    endpoint = "unix://" + socket.toAbsolutePath();
    var config =
        NodeAgentConfig.of(
                api,
                NODE,
                tmp.resolve("state"),
                DeviceRoot.at(sim.root()),
                tmp.resolve("cdi"),
                new SystemEnv())
            .withBootId("volumes-boot")
            .withRescanPeriod(Duration.ofSeconds(1))
            .withCsiPluginDir(plugins);
    agent = NodeAgent.start(config, ep -> new InstantPlugin(ep));
  }

  @AfterEach
  void tearDown() throws Exception {
    agent.close();
    store.close();
  }

  @Test
  void theProbedPluginIsInTheNodesStatus() throws Exception {
    var node =
        ApiAwait.object(
                api,
                Kinds.NODE,
                NODE,
                n -> n.filter(x -> !x.status().plugins().isEmpty()).isPresent())
            .orElseThrow();
    assertThat(node.status().plugins())
        .containsExactly(
            new PluginInstance(
                PLUGIN,
                endpoint,
                "9.9",
                Set.of(PluginRole.Controller, PluginRole.Node),
                true,
                "",
                "csi-" + NODE));
  }

  @Test
  void aTaskRunsWithItsPublishedVolumeAndReleasesItAfterItsExit() throws Exception {
    var v =
        api.create(
            new Volume(
                ObjectMeta.named("data"),
                new VolumeSpec(PLUGIN, 1L << 30, AccessMode.SingleNodeWriter, Map.of()),
                VolumeStatus.EMPTY));
    v =
        api.updateStatus(
            v.withStatus(
                new VolumeStatus(
                    VolumePhase.Available, "vol-data", 1L << 30, List.of(), List.of())));
    var spec =
        new TaskSpec(
            Optional.of(NODE),
            List.of("sh", "-c", "echo \"data at $QM_VOLUME_DATA\""),
            Map.of(),
            List.of(),
            List.of(VolumeUse.writer("data")),
            "exec",
            Optional.empty(),
            0,
            DeviceLossPolicy.Continue);
    var t =
        api.create(
            new Task(
                ObjectMeta.named("train-0"),
                spec,
                new TaskStatus(
                    TaskPhase.Scheduled,
                    "Scheduled",
                    "",
                    Optional.of(NODE),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    List.of())));
    var claim =
        new VolumeClaim(
            "train-0",
            t.metadata().uid(),
            NODE,
            VolumeClaim.Mode.Write,
            VolumeClaim.State.Taken,
            true,
            Map.of());
    api.updateStatus(v.withStatus(v.status().withClaims(List.of(claim))));

    ApiAwait.object(api, Kinds.TASK, "train-0", phaseIs(TaskPhase.Succeeded));
    var target =
        tmp.resolve("state")
            .resolve("csi/publish")
            .resolve(t.metadata().uid())
            .resolve("data")
            .toString();
    assertThat(Files.readString(agent.config().taskLog("train-0"))).contains("data at " + target);

    ApiAwait.object(
        api,
        Kinds.VOLUME,
        "data",
        o ->
            o.filter(
                    x ->
                        x.status().claims().stream()
                            .allMatch(c -> c.state() == VolumeClaim.State.NodeDetached))
                .isPresent());
    var staging = tmp.resolve("state").resolve("csi/staging/data").toString();
    assertThat(calls)
        .containsSubsequence(
            "NodeStageVolume " + staging,
            "NodePublishVolume " + target,
            "NodeUnpublishVolume " + target,
            "NodeUnstageVolume " + staging);
  }

  /** A plugin that answers at once and logs the node calls. */
  private final class InstantPlugin implements CsiPlugin {
    private final String endpoint;

    InstantPlugin(String endpoint) {
      this.endpoint = endpoint;
    }

    private static <T> CompletionStage<T> now(T value) {
      return CompletableFuture.completedFuture(value);
    }

    @Override
    public CompletionStage<PluginInfo> pluginInfo() {
      return now(
          new PluginInfo(
              PLUGIN,
              "9.9",
              Set.of(
                  Capability.ControllerService,
                  Capability.StageUnstageVolume,
                  Capability.PublishUnpublishVolume),
              Set.of()));
    }

    @Override
    public CompletionStage<Boolean> probe() {
      return now(true);
    }

    @Override
    public CompletionStage<CreatedVolume> createVolume(
        String name, long capacityBytes, AccessMode mode, Map<String, String> parameters) {
      return now(new CreatedVolume("vol-" + name, capacityBytes, Map.of()));
    }

    @Override
    public CompletionStage<Void> deleteVolume(String volumeId) {
      return now(null);
    }

    @Override
    public CompletionStage<Map<String, String>> controllerPublish(
        String volumeId, String csiNodeId, AccessMode mode, boolean readOnly) {
      return now(Map.of());
    }

    @Override
    public CompletionStage<Void> controllerUnpublish(String volumeId, String csiNodeId) {
      return now(null);
    }

    @Override
    public CompletionStage<Long> capacity() {
      return now(1L << 40);
    }

    @Override
    public CompletionStage<NodeInfo> nodeInfo() {
      return now(new NodeInfo("csi-" + NODE, 0));
    }

    @Override
    public CompletionStage<Void> nodeStage(
        String volumeId, Map<String, String> publishContext, String stagingPath, AccessMode mode) {
      calls.add("NodeStageVolume " + stagingPath);
      return now(null);
    }

    @Override
    public CompletionStage<Void> nodeUnstage(String volumeId, String stagingPath) {
      calls.add("NodeUnstageVolume " + stagingPath);
      return now(null);
    }

    @Override
    public CompletionStage<Void> nodePublish(
        String volumeId,
        Map<String, String> publishContext,
        String stagingPath,
        String targetPath,
        AccessMode mode,
        boolean readOnly) {
      calls.add("NodePublishVolume " + targetPath);
      return now(null);
    }

    @Override
    public CompletionStage<Void> nodeUnpublish(String volumeId, String targetPath) {
      calls.add("NodeUnpublishVolume " + targetPath);
      return now(null);
    }

    @Override
    public void close() {}

    @Override
    public String toString() {
      return "InstantPlugin[" + endpoint + "]";
    }
  }
}
