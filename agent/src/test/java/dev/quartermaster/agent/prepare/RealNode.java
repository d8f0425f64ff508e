package dev.quartermaster.agent.prepare;

import dev.quartermaster.agent.cdi.InMemoryClaimSpecs;
import dev.quartermaster.agent.checkpoint.DurableLedger;
import dev.quartermaster.agent.checkpoint.SimulatedLedgerFile;
import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.devices.Inventory;
import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.effects.DomainMembership;
import dev.quartermaster.agent.effects.EffectsReconciler;
import dev.quartermaster.agent.effects.InMemoryHelperProcesses;
import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.core.env.DeterministicEnv;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * The real ledger, checkpoint (simulated file), CDI specs (in memory) and effects, behind the
 * scenario API.
 */
final class RealNode implements NodeUnderTest {
  static final String BOOT = "boot-1";

  /** A regular-file stand-in for the GPU's node: prepare checks that it is there. */
  static final Path GPU_NODE = standIn();

  private final DeterministicEnv env;
  private final SimulatedLedgerFile file = new SimulatedLedgerFile();
  private final InMemoryClaimSpecs specs = new InMemoryClaimSpecs();
  private final InMemoryHelperProcesses helpers = new InMemoryHelperProcesses();
  private final Published membership = new Published();
  private final Inventory inventory =
      new Inventory(
          "sim",
          List.of(
              new DiscoveredGpu(
                  IncidentScenarios.DEVICE,
                  0,
                  "GPU-0",
                  "sim",
                  OptionalLong.of(1),
                  0,
                  "0000:18:00.0",
                  new VerifiedNode("/dev/nvidia0", GPU_NODE, new DeviceNumber(195, 0)))),
          List.of());
  private ClaimPreparer preparer;

  RealNode(long seed) {
    this.env = new DeterministicEnv(seed);
    start();
  }

  private void start() {
    try {
      var opened = DurableLedger.open(file, BOOT, env, ClaimLedger.DEFAULT_TOMBSTONE_TTL);
      // Helpers and the Node's published membership outlive the agent process; the reconciler is
      // new.
      preparer =
          new ClaimPreparer(
              opened.ledger(),
              specs,
              new EffectsReconciler(helpers, membership),
              () -> inventory,
              () -> new ControlNodeStatus.Complete(List.of(), List.of()));
      preparer.removeOrphanSpecs();
      preparer.syncEffects();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path standIn() {
    try {
      var file = java.nio.file.Files.createTempFile("qm-nvidia0-", "");
      file.toFile().deleteOnExit();
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ClaimRef ref(String claim) {
    return new ClaimRef("uid-" + claim, "claim-" + claim);
  }

  @Override
  public boolean prepare(String claim) {
    try {
      var request =
          new PrepareRequest(
              ref(claim), List.of(IncidentScenarios.DEVICE), Optional.of(IncidentScenarios.DOMAIN));
      return preparer.prepare(request) instanceof PrepareOutcome.Prepared;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void unprepare(String claim) {
    try {
      preparer.unprepare(ref(claim));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Set<String> membership() {
    return membership.domains;
  }

  @Override
  public Set<String> helpers() {
    return helpers.running();
  }

  @Override
  public Map<String, Set<String>> holdersByDevice() {
    var out = new HashMap<String, Set<String>>();
    for (var entry : preparer.durable().ledger().snapshot().holding()) {
      for (var d : entry.devices()) {
        out.computeIfAbsent(d, k -> new TreeSet<>()).add(entry.claim().name());
      }
    }
    return out;
  }

  @Override
  public void restart() {
    file.crash();
    start();
  }

  @Override
  public void tick() {
    env.advance(Duration.ofSeconds(1));
  }

  private static final class Published implements DomainMembership {
    Set<String> domains = Set.of();

    @Override
    public void publish(Set<String> next) {
      domains = Set.copyOf(next);
    }
  }
}
