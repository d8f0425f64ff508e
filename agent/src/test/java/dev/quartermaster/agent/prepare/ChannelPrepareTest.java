package dev.quartermaster.agent.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quartermaster.agent.cdi.CdiDeviceNode;
import dev.quartermaster.agent.cdi.CdiResolver;
import dev.quartermaster.agent.cdi.CdiSpecWriter;
import dev.quartermaster.agent.checkpoint.DurableLedger;
import dev.quartermaster.agent.checkpoint.SimulatedLedgerFile;
import dev.quartermaster.agent.controlnodes.ControlNodeCheck;
import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.devices.Inventory;
import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.discovery.ImexChannels;
import dev.quartermaster.agent.discovery.Mknod;
import dev.quartermaster.agent.discovery.ProcGpuDiscovery;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.effects.EffectsReconciler;
import dev.quartermaster.agent.effects.InMemoryHelperProcesses;
import dev.quartermaster.agent.host.HostDeviceTree;
import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.core.env.DeterministicEnv;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A claim for an IMEX channel, allocated to this node: found in the node's inventory (before, the
 * agent said "device channel-0 is not on this node" and the task waited for ever), prepared, and
 * its CDI spec carries {@code /dev/nvidia-caps-imex-channels/channel<N>} with the node's number.
 */
class ChannelPrepareTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;
  private final Path cdi = Path.of("cdi");

  private ClaimPreparer preparer(Path root, Supplier<ControlNodeStatus> controlNodes)
      throws Exception {
    var durable =
        DurableLedger.open(
                new SimulatedLedgerFile(),
                "boot",
                new DeterministicEnv(4),
                ClaimLedger.DEFAULT_TOMBSTONE_TTL)
            .ledger();
    return new ClaimPreparer(
        durable,
        new CdiSpecWriter(tmp.resolve(cdi)),
        new EffectsReconciler(new InMemoryHelperProcesses(), domains -> {}),
        () -> Inventory.of(new ProcGpuDiscovery(root).discover(), ImexChannels.scan(root)),
        controlNodes,
        HostDeviceTree::check);
  }

  private static PrepareRequest request(String uid, String... devices) {
    return new PrepareRequest(
        new ClaimRef(uid, "claim-" + uid), List.of(devices), Optional.empty());
  }

  private JsonNode spec(String deviceClass, String uid) throws Exception {
    return JSON.readTree(
        tmp.resolve(cdi)
            .resolve("quartermaster.dev-" + deviceClass + "_" + uid + ".json")
            .toFile());
  }

  @Test
  void aChannelClaimOnASimulatedRootIsPreparedWithItsChannelNode() throws Exception {
    var sim = SimulatedDeviceRoot.builder(tmp.resolve("root")).gpus(2).channels(8).build();
    var preparer = preparer(sim.root(), () -> new ControlNodeCheck(sim.root()).check());

    var outcome = preparer.prepare(request("uid-ch", "channel-5"));

    assertThat(outcome)
        .isEqualTo(
            new PrepareOutcome.Prepared(List.of("quartermaster.dev/channel=uid-ch-channel-5")));
    var spec = spec("channel", "uid-ch");
    assertThat(spec.path("kind").asText()).isEqualTo("quartermaster.dev/channel");
    var device = spec.path("devices").get(0);
    assertThat(device.path("name").asText()).isEqualTo("uid-ch-channel-5");
    var node = device.path("containerEdits").path("deviceNodes").get(0);
    assertThat(node.path("path").asText()).isEqualTo("/dev/nvidia-caps-imex-channels/channel5");
    assertThat(node.path("hostPath").asText()).isEqualTo(sim.channelPath(5).toString());
    assertThat(node.path("type").asText()).isEqualTo("c");
    assertThat(new DeviceNumber(node.path("major").asLong(), node.path("minor").asLong()))
        .isEqualTo(sim.standIn("nvidia-caps-imex-channels/channel5"));
    assertThat(device.path("containerEdits").path("env"))
        .extracting(JsonNode::asText)
        .containsExactly("QUARTERMASTER_IMEX_CHANNEL_5_CLAIM_UID=uid-ch");
    assertThat(spec.has("containerEdits"))
        .as("nothing at spec level: another claim's would overwrite it")
        .isFalse();
    assertThat(Files.exists(tmp.resolve(cdi).resolve("quartermaster.dev-gpu_uid-ch.json")))
        .as("no GPU spec")
        .isFalse();

    // What a runtime resolves for the claim: exactly the channel's node.
    var edits =
        new CdiResolver(List.of(tmp.resolve(cdi)))
            .resolve(((PrepareOutcome.Prepared) outcome).cdiDevices());
    assertThat(edits.deviceNodes())
        .extracting(CdiDeviceNode::path)
        .containsExactly("/dev/nvidia-caps-imex-channels/channel5");
    assertThat(edits.composedEnv())
        .contains(
            "QUARTERMASTER_CLAIM_UID=uid-ch",
            "QUARTERMASTER_IMEX_CHANNELS=5",
            "NVIDIA_VISIBLE_DEVICES=void");

    // Unprepare removes it: no spec is left for a runtime to read (its file may stay as a spare).
    preparer.unprepare(new ClaimRef("uid-ch", "claim-uid-ch"));
    try (var left = Files.list(tmp.resolve(cdi))) {
      assertThat(left).noneMatch(f -> f.getFileName().toString().endsWith(".json"));
    }
  }

  @Test
  void onADriverRootTheSpecCarriesTheChannelMajorFromProcDevicesAndTheChannelAsMinor()
      throws Exception {
    assumeTrue(canMknod(), "needs mknod (run as root)");
    var root = tmp.resolve("host");
    Files.createDirectories(root.resolve("proc"));
    Files.writeString(
        root.resolve("proc/devices"),
        "Character devices:\n195 nvidia\n508 nvidia-caps-imex-channels\n\n");
    var dir = Files.createDirectories(root.resolve("dev/nvidia-caps-imex-channels"));
    for (int id = 0; id < 4; id++) {
      Mknod.charDevice(dir.resolve("channel" + id), new DeviceNumber(508, id));
    }
    var preparer = preparer(root, () -> new ControlNodeStatus.Complete(List.of(), List.of()));

    var outcome = preparer.prepare(request("uid-d", "channel-0", "channel-3"));

    assertThat(outcome)
        .isEqualTo(
            new PrepareOutcome.Prepared(
                List.of(
                    "quartermaster.dev/channel=uid-d-channel-0",
                    "quartermaster.dev/channel=uid-d-channel-3")));
    var devices = spec("channel", "uid-d").path("devices");
    for (int i = 0; i < 2; i++) {
      int id = i == 0 ? 0 : 3;
      var node = devices.get(i).path("containerEdits").path("deviceNodes").get(0);
      assertThat(node.path("path").asText())
          .isEqualTo("/dev/nvidia-caps-imex-channels/channel" + id);
      assertThat(node.path("major").asLong()).isEqualTo(508);
      assertThat(node.path("minor").asLong()).isEqualTo(id);
    }
  }

  @Test
  void aClaimWithAGpuAndAChannelGetsBothSpecs() throws Exception {
    var sim = SimulatedDeviceRoot.builder(tmp.resolve("root")).gpus(2).channels(4).build();
    var preparer = preparer(sim.root(), () -> new ControlNodeCheck(sim.root()).check());

    var outcome = preparer.prepare(request("uid-m", "gpu-1", "channel-0"));

    assertThat(outcome)
        .isEqualTo(
            new PrepareOutcome.Prepared(
                List.of(
                    "quartermaster.dev/gpu=uid-m-gpu-1",
                    "quartermaster.dev/channel=uid-m-channel-0")));
    assertThat(
            spec("gpu", "uid-m")
                .path("devices")
                .get(0)
                .path("containerEdits")
                .path("deviceNodes")
                .get(0)
                .path("path")
                .asText())
        .isEqualTo("/dev/nvidia1");
    assertThat(
            spec("channel", "uid-m")
                .path("devices")
                .get(0)
                .path("containerEdits")
                .path("deviceNodes")
                .get(0)
                .path("path")
                .asText())
        .isEqualTo("/dev/nvidia-caps-imex-channels/channel0");
    assertThat(preparer.rewriteSpecs()).isEmpty();
  }

  @Test
  void withoutTheChannelMajorAChannelClaimFailsSayingWhy() throws Exception {
    var sim =
        SimulatedDeviceRoot.builder(tmp.resolve("root"))
            .gpus(1)
            .channels(4)
            .withoutImexChannelsMajor()
            .build();
    var preparer = preparer(sim.root(), () -> new ControlNodeCheck(sim.root()).check());

    var outcome = preparer.prepare(request("uid-n", "channel-0"));

    assertThat(outcome)
        .isInstanceOfSatisfying(
            PrepareOutcome.Failed.class,
            f ->
                assertThat(f.reason())
                    .contains("device channel-0 is not on this node")
                    .contains(
                        "no IMEX channels: "
                            + sim.root().resolve("proc/devices")
                            + " lists no nvidia-caps-imex-channels major"));
    assertThat(preparer.durable().ledger().snapshot().holding()).as("nothing reserved").isEmpty();
  }

  @Test
  void aChannelWhoseNodeWentAwayWaitsNamingThePath() throws Exception {
    var sim = SimulatedDeviceRoot.builder(tmp.resolve("root")).gpus(1).channels(4).build();
    var preparer = preparer(sim.root(), () -> new ControlNodeCheck(sim.root()).check());
    assertThat(preparer.prepare(request("uid-1", "channel-1")))
        .isInstanceOf(PrepareOutcome.Prepared.class);
    Files.delete(sim.channelPath(2));

    var outcome = preparer.prepare(request("uid-2", "channel-2"));

    // The rescan inside this prepare no longer lists channel-2, but it was seen: wait, naming it.
    assertThat(outcome)
        .isInstanceOfSatisfying(
            PrepareOutcome.Waiting.class,
            w ->
                assertThat(w.reason())
                    .contains("channel-2")
                    .contains(sim.channelPath(2).toString()));
    assertThat(preparer.checkHeldGpuNodes()).isEmpty();
    Files.delete(sim.channelPath(1));
    assertThat(preparer.checkHeldGpuNodes())
        .extracting(p -> p.path())
        .containsExactly(sim.channelPath(1));
  }

  private boolean canMknod() {
    var probe = tmp.resolve(".probe");
    try {
      Mknod.charDevice(probe, new DeviceNumber(1, 3));
      Files.delete(probe);
      return true;
    } catch (java.io.IOException e) {
      return false;
    }
  }
}
