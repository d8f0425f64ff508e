package dev.quartermaster.agent.prepare;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.cdi.InMemoryClaimSpecs;
import dev.quartermaster.agent.checkpoint.DurableLedger;
import dev.quartermaster.agent.checkpoint.SimulatedLedgerFile;
import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.devices.Inventory;
import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.effects.EffectsReconciler;
import dev.quartermaster.agent.effects.InMemoryHelperProcesses;
import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.core.env.DeterministicEnv;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hole 4b: {@code /dev/nvidia0} removed between two discoveries. The promise checked: a claim is
 * never reported Prepared while its GPU's own node is missing on the host (a task given it fails
 * its device check, and a workload re-creates it in a tight loop). The real preparer waits, naming
 * the path, with nothing reserved; once discovery has dropped the GPU it still waits (rather than
 * failing for good) and prepares it when the node is back. The naive preparer kept here (trust the
 * last discovery, as before) is caught.
 */
class GpuNodeAtPrepareTest {
  @TempDir Path tmp;
  private Path node;
  private Inventory withGpu;
  private final AtomicReference<Inventory> inventory = new AtomicReference<>();
  private ClaimPreparer preparer;

  @BeforeEach
  void setUp() throws Exception {
    node = tmp.resolve("dev/nvidia0");
    Files.createDirectories(node.getParent());
    Files.writeString(
        node, ""); // a regular-file stand-in, as on a simulated root built without mknod
    withGpu =
        new Inventory(
            "sim",
            List.of(
                new DiscoveredGpu(
                    "gpu-0",
                    0,
                    "GPU-0",
                    "sim",
                    OptionalLong.of(1),
                    0,
                    "0000:18:00.0",
                    new VerifiedNode("/dev/nvidia0", node, new DeviceNumber(195, 0)))),
            List.of());
    inventory.set(withGpu);
    var env = new DeterministicEnv(4);
    var durable =
        DurableLedger.open(
                new SimulatedLedgerFile(), "boot", env, ClaimLedger.DEFAULT_TOMBSTONE_TTL)
            .ledger();
    preparer =
        new ClaimPreparer(
            durable,
            new InMemoryClaimSpecs(),
            new EffectsReconciler(new InMemoryHelperProcesses(), domains -> {}),
            inventory::get,
            () -> new ControlNodeStatus.Complete(List.of(), List.of()));
  }

  private static PrepareRequest request(String claim) {
    return new PrepareRequest(
        new ClaimRef("uid-" + claim, claim), List.of("gpu-0"), Optional.empty());
  }

  private PrepareOutcome real(PrepareRequest r) {
    try {
      return preparer.prepare(r);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Before the fix: whatever the last discovery found is prepared. */
  private PrepareOutcome naive(PrepareRequest r) {
    return inventory.get().gpu("gpu-0").isPresent()
        ? new PrepareOutcome.Prepared(List.of("cdi-" + r.claim().uid()))
        : new PrepareOutcome.Failed("device gpu-0 is not on this node");
  }

  /** The node goes before discovery notices; then discovery notices. Violations of the promise. */
  private List<String> scenario(Function<PrepareRequest, PrepareOutcome> prepare) throws Exception {
    var violations = new java.util.ArrayList<String>();
    Files.delete(node);
    if (prepare.apply(request("a")) instanceof PrepareOutcome.Prepared) {
      violations.add(
          "claim a prepared while " + node + " is missing (discovery not yet rescanned)");
    }
    inventory.set(new Inventory("sim", List.of(), List.of("gpu-0 (GPU-0): missing " + node)));
    var afterRescan = prepare.apply(request("b"));
    if (afterRescan instanceof PrepareOutcome.Prepared) {
      violations.add("claim b prepared while " + node + " is missing");
    }
    if (afterRescan instanceof PrepareOutcome.Failed) {
      violations.add("claim b failed for good although its GPU only lost its node for a while");
    }
    return violations;
  }

  @Test
  void theRealPreparerWaitsNamingThePathAndPreparesOnceTheNodeIsBack() throws Exception {
    assertThat(scenario(this::real)).isEmpty();
    var waiting = real(request("a"));
    assertThat(waiting)
        .isInstanceOfSatisfying(
            PrepareOutcome.Waiting.class, w -> assertThat(w.reason()).contains("missing " + node));
    assertThat(preparer.durable().ledger().snapshot().holding()).isEmpty();
    assertThat(preparer.checkHeldGpuNodes()).isEmpty(); // nothing held, nothing to report

    Files.writeString(node, "");
    inventory.set(withGpu);
    assertThat(real(request("a"))).isInstanceOf(PrepareOutcome.Prepared.class);
    Files.delete(node);
    assertThat(preparer.checkHeldGpuNodes()).extracting(p -> p.path()).containsExactly(node);
    assertThat(real(request("a")))
        .as("an already prepared claim stays prepared (I2)")
        .isInstanceOf(PrepareOutcome.Prepared.class);
  }

  @Test
  void theNaivePreparerIsCaught() throws Exception {
    assertThat(scenario(this::naive))
        .hasSize(2)
        .anyMatch(v -> v.startsWith("claim a prepared while"));
  }
}
