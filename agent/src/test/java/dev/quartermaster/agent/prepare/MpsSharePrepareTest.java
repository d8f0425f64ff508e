package dev.quartermaster.agent.prepare;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.quartermaster.agent.cdi.CdiSpecWriter;
import dev.quartermaster.agent.checkpoint.DurableLedger;
import dev.quartermaster.agent.checkpoint.SimulatedLedgerFile;
import dev.quartermaster.agent.controlnodes.ControlNodeCheck;
import dev.quartermaster.agent.devices.Inventory;
import dev.quartermaster.agent.discovery.ImexChannels;
import dev.quartermaster.agent.discovery.ProcGpuDiscovery;
import dev.quartermaster.agent.discovery.SimulatedDeviceRoot;
import dev.quartermaster.agent.effects.EffectsReconciler;
import dev.quartermaster.agent.effects.InMemoryHelperProcesses;
import dev.quartermaster.agent.host.HostDeviceTree;
import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.agent.mps.MpsPaths;
import dev.quartermaster.core.env.DeterministicEnv;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MPS shares prepared by the agent: the GPU's daemon starts with the first share and before its
 * prepare completes, each client's spec carries the daemon's pipe directory (mounted) and the
 * share's limits, shares past the GPU's compute wait in the ledger, a daemon that dies is started
 * again, and the daemon stops only after the last share is released.
 */
class MpsSharePrepareTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  @Test
  void sharesRunThroughOneDaemonWithTheirLimits() throws Exception {
    var sim = SimulatedDeviceRoot.builder(tmp.resolve("root")).gpus(2).build();
    var durable =
        DurableLedger.open(
                new SimulatedLedgerFile(),
                "boot",
                new DeterministicEnv(47),
                ClaimLedger.DEFAULT_TOMBSTONE_TTL)
            .ledger();
    var daemons = new InMemoryHelperProcesses();
    var mps = new MpsPaths(tmp.resolve("mps"));
    var preparer =
        new ClaimPreparer(
            durable,
            new CdiSpecWriter(tmp.resolve("cdi"), mps),
            new EffectsReconciler(new InMemoryHelperProcesses(), domains -> {}, daemons),
            () ->
                Inventory.of(
                    new ProcGpuDiscovery(sim.root()).discover(), ImexChannels.scan(sim.root())),
            () -> new ControlNodeCheck(sim.root()).check(),
            HostDeviceTree::check);

    assertThat(preparer.prepare(request("uid-a", "gpu-1-mps-60pct-20gib-0")))
        .isInstanceOf(PrepareOutcome.Prepared.class);
    assertThat(daemons.running()).containsExactly("gpu-1");
    assertThat(preparer.prepare(request("uid-b", "gpu-1-mps-40pct-8gib-0")))
        .isInstanceOf(PrepareOutcome.Prepared.class);
    assertThat(daemons.log()).containsExactly("start gpu-1"); // one daemon for both

    var env = env(tmp.resolve("cdi/quartermaster.dev-gpu_uid-b.json"));
    assertThat(env.getFirst()).startsWith("QUARTERMASTER_GPU_1_MPS_40PCT_8GIB_0_UUID=GPU-");
    assertThat(env)
        .contains(
            "CUDA_MPS_PIPE_DIRECTORY=" + mps.pipe("gpu-1"),
            "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=40",
            "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=8G");
    var device =
        JSON.readTree(tmp.resolve("cdi/quartermaster.dev-gpu_uid-b.json").toFile())
            .path("devices")
            .get(0);
    assertThat(device.path("containerEdits").path("mounts").get(0).path("hostPath").asText())
        .isEqualTo(mps.pipe("gpu-1").toString());

    // A third share past the GPU's compute (60 + 40 + 5 %) waits, naming what holds it.
    var third = preparer.prepare(request("uid-c", "gpu-1-mps-5pct-1gib-0"));
    assertThat(third).isInstanceOf(PrepareOutcome.Waiting.class);
    assertThat(((PrepareOutcome.Waiting) third).reason()).contains("compute-percent: 105 of 100");

    // The daemon dies: the next reconcile starts it again, since shares still want it.
    daemons.kill("gpu-1");
    assertThat(preparer.wantsMpsDaemons()).isTrue();
    preparer.syncEffects();
    assertThat(daemons.running()).containsExactly("gpu-1");

    // It stops only after the last share is released.
    preparer.unprepare(new ClaimRef("uid-a", "claim-uid-a"));
    assertThat(daemons.running()).containsExactly("gpu-1");
    preparer.unprepare(new ClaimRef("uid-b", "claim-uid-b"));
    assertThat(daemons.running()).isEmpty();
    assertThat(preparer.wantsMpsDaemons()).isFalse();
  }

  private static List<String> env(Path spec) throws Exception {
    var out = new ArrayList<String>();
    JsonNode device = JSON.readTree(spec.toFile()).path("devices").get(0);
    device.path("containerEdits").path("env").forEach(e -> out.add(e.asText()));
    return out;
  }

  private static PrepareRequest request(String uid, String device) {
    return new PrepareRequest(new ClaimRef(uid, "claim-" + uid), List.of(device), Optional.empty());
  }
}
