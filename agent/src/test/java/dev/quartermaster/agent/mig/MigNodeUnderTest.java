package dev.quartermaster.agent.mig;

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
import dev.quartermaster.agent.host.HolderScan;
import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.prepare.ClaimPreparer;
import dev.quartermaster.api.device.DeviceSliceSpec;
import dev.quartermaster.api.device.mig.MigModels;
import dev.quartermaster.api.device.use.DeviceUse;
import dev.quartermaster.api.node.MigMode;
import dev.quartermaster.core.env.DeterministicEnv;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One node with one H200 in Dynamic MIG mode whose driver state (a {@link MigMemory}), ledger file
 * and CDI specs outlive its agents: {@link #restart()} is a {@code kill -9} and a new agent, which
 * reconciles at start as {@code NodeAgent} does (or not, for the naive start).
 */
final class MigNodeUnderTest {
  static final DiscoveredGpu GPU =
      new DiscoveredGpu(
          "gpu-0",
          0,
          "GPU-0",
          MigModels.H200_NAME,
          OptionalLong.of(141L << 30),
          0,
          "0000:18:00.0",
          new VerifiedNode(
              "/dev/nvidia0", Path.of("/sim/n/dev/nvidia0"), new DeviceNumber(195, 0)));
  static final Inventory INVENTORY = new Inventory("sim", List.of(GPU), List.of());

  final DeterministicEnv env = new DeterministicEnv(7);
  final SimulatedLedgerFile file = new SimulatedLedgerFile();
  final InMemoryClaimSpecs specs = new InMemoryClaimSpecs();
  final MigMemory driver = new MigMemory("n", Path.of("/sim/n/dev"));
  final Set<Path> openNodes = new HashSet<>();
  final Set<Path> missingNodes = new HashSet<>();
  private final boolean reconcileAtStart;
  ClaimPreparer agent;

  /** Crashes the agent between a create and the next ledger record, once, when set. */
  boolean crashAfterCreate;

  /** Crashes the agent before a destroy, once, when set. */
  boolean crashBeforeDestroy;

  MigNodeUnderTest(boolean reconcileAtStart) throws IOException, MigRefusedException {
    this.reconcileAtStart = reconcileAtStart;
    driver.save(driver.load(), driver.load().withMode(0, true));
    start();
  }

  static final class Crash extends RuntimeException {
    Crash(String where) {
      super("crash " + where);
    }
  }

  private MigControl control() {
    var real =
        new SimulatedMig(
            driver, nodes -> nodes.stream().anyMatch(n -> openNodes.contains(n.hostPath())));
    return new ForwardingMig(real) {
      @Override
      public LiveInstance create(MigGpu gpu, dev.quartermaster.api.device.mig.MigPlacement p)
          throws MigRefusedException {
        var made = inner.create(gpu, p);
        if (crashAfterCreate) {
          crashAfterCreate = false;
          throw new Crash("after create of " + made);
        }
        return made;
      }

      @Override
      public void destroy(LiveInstance instance) throws MigRefusedException {
        if (crashBeforeDestroy) {
          crashBeforeDestroy = false;
          throw new Crash("before destroy of " + instance);
        }
        inner.destroy(instance);
      }
    };
  }

  private void start() throws IOException {
    var opened = DurableLedger.open(file, "boot-1", env, ClaimLedger.DEFAULT_TOMBSTONE_TTL);
    agent =
        new ClaimPreparer(
            opened.ledger(),
            specs,
            new EffectsReconciler(new InMemoryHelperProcesses(), next -> {}),
            () -> INVENTORY,
            () -> new ControlNodeStatus.Complete(List.of(), List.of()),
            node ->
                missingNodes.contains(node.hostPath())
                    ? java.util.Optional.of(
                        new dev.quartermaster.agent.discovery.NodeProblem(
                            node.hostPath(),
                            dev.quartermaster.agent.discovery.NodeProblem.Kind.Missing,
                            "missing " + node.hostPath()))
                    : java.util.Optional.empty(),
            devices -> HolderScan.FREE);
    var mig = new NodeMig(control());
    mig.wish(Map.of(GPU.name(), MigMode.Dynamic));
    agent.useMig(mig);
    var offers = mig.offers(List.of(GPU));
    var devices = new ArrayList<dev.quartermaster.api.device.Device>();
    offers.forEach(o -> devices.addAll(o.devices()));
    var counters = offers.stream().flatMap(o -> o.counters().stream()).toList();
    opened.ledger().ledger().judgeBy(DeviceUse.of(new DeviceSliceSpec("n", devices, counters)));
    agent.removeOrphanSpecs();
    if (reconcileAtStart) {
      agent.syncEffects();
    }
  }

  /** {@code kill -9}: what was not synced is lost; a new agent starts on the same node. */
  void restart() throws IOException {
    file.crash();
    crashAfterCreate = false;
    crashBeforeDestroy = false;
    start();
  }

  List<LiveInstance> instances() {
    return driver.table().instances();
  }
}
