package dev.quartermaster.agent.prepare;

import static org.assertj.core.api.Assertions.assertThat;

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
import dev.quartermaster.core.env.DeterministicEnv;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replicas of a time-sliced GPU prepared by the agent: each claim's CDI spec gives its GPU's node
 * under the replica's own name and keys, two claims on one GPU both prepare, and the start-up
 * rewrite of held claims' specs finds the replicas (an agent restarted with clients running once
 * failed every replica claim's spec: "devices [gpu-0-ts-1] are not all found now").
 */
class ReplicaPrepareTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  @Test
  void twoClaimsOnReplicasOfOneGpuArePreparedAndTheirSpecsRewrittenAfter() throws Exception {
    var sim = SimulatedDeviceRoot.builder(tmp.resolve("root")).gpus(2).build();
    var durable =
        DurableLedger.open(
                new SimulatedLedgerFile(),
                "boot",
                new DeterministicEnv(47),
                ClaimLedger.DEFAULT_TOMBSTONE_TTL)
            .ledger();
    var preparer =
        new ClaimPreparer(
            durable,
            new CdiSpecWriter(tmp.resolve("cdi")),
            new EffectsReconciler(new InMemoryHelperProcesses(), domains -> {}),
            () ->
                Inventory.of(
                    new ProcGpuDiscovery(sim.root()).discover(), ImexChannels.scan(sim.root())),
            () -> new ControlNodeCheck(sim.root()).check(),
            HostDeviceTree::check);

    var a = preparer.prepare(request("uid-a", "gpu-1-ts-0"));
    var b = preparer.prepare(request("uid-b", "gpu-1-ts-2"));

    assertThat(a).isInstanceOf(PrepareOutcome.Prepared.class);
    assertThat(b).isInstanceOf(PrepareOutcome.Prepared.class);
    var spec = JSON.readTree(tmp.resolve("cdi/quartermaster.dev-gpu_uid-b.json").toFile());
    var device = spec.path("devices").get(0);
    assertThat(device.path("name").asText()).isEqualTo("uid-b-gpu-1-ts-2");
    assertThat(device.path("containerEdits").path("deviceNodes").get(0).path("path").asText())
        .isEqualTo("/dev/nvidia1");
    assertThat(device.path("containerEdits").path("env").get(0).asText())
        .startsWith("QUARTERMASTER_GPU_1_TS_2_UUID=GPU-");
    // What an agent restarted with both claims held does first.
    assertThat(preparer.rewriteSpecs()).isEmpty();
    // A replica of a GPU that is not there is no device of this node.
    assertThat(preparer.prepare(request("uid-c", "gpu-7-ts-0")))
        .isInstanceOf(PrepareOutcome.Failed.class);
  }

  private static PrepareRequest request(String uid, String device) {
    return new PrepareRequest(new ClaimRef(uid, "claim-" + uid), List.of(device), Optional.empty());
  }
}
