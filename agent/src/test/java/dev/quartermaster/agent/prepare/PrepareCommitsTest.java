package dev.quartermaster.agent.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.quartermaster.agent.cdi.ClaimSpecs;
import dev.quartermaster.agent.cdi.InMemoryClaimSpecs;
import dev.quartermaster.agent.checkpoint.DurableLedger;
import dev.quartermaster.agent.checkpoint.SimulatedLedgerFile;
import dev.quartermaster.agent.controlnodes.ControlNodeStatus;
import dev.quartermaster.agent.devices.Inventory;
import dev.quartermaster.agent.discovery.DeviceNumber;
import dev.quartermaster.agent.discovery.DiscoveredChannel;
import dev.quartermaster.agent.discovery.DiscoveredGpu;
import dev.quartermaster.agent.discovery.VerifiedNode;
import dev.quartermaster.agent.effects.EffectsReconciler;
import dev.quartermaster.agent.effects.InMemoryHelperProcesses;
import dev.quartermaster.agent.ledger.ClaimLedger;
import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.core.env.DeterministicEnv;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * How many ledger commits (each an fsync) a prepare costs, and what a crash in between leaves. A
 * claim without a compute domain has no side effect but its CDI spec, so its prepare commits once,
 * at the completion; one in a domain commits before its effects too. A crash after the spec is
 * written and before that commit leaves only an orphan spec, which start-up removes.
 */
class PrepareCommitsTest {
  private static final ClaimRef CLAIM = new ClaimRef("uid-a", "claim-a");
  private static final Inventory INVENTORY =
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
                  new VerifiedNode("/dev/nvidia0", RealNode.GPU_NODE, new DeviceNumber(195, 0)))),
          List.of());

  private final DeterministicEnv env = new DeterministicEnv(7);
  private final SimulatedLedgerFile file = new SimulatedLedgerFile();

  /** The node's spec directory: it outlives an agent that crashes. */
  private final InMemoryClaimSpecs specs = new InMemoryClaimSpecs();

  private final InMemoryHelperProcesses helpers = new InMemoryHelperProcesses();

  private ClaimPreparer agent(ClaimSpecs specs) throws IOException {
    var opened = DurableLedger.open(file, "boot-1", env, ClaimLedger.DEFAULT_TOMBSTONE_TTL);
    return new ClaimPreparer(
        opened.ledger(),
        specs,
        new EffectsReconciler(helpers, next -> {}),
        () -> INVENTORY,
        () -> new ControlNodeStatus.Complete(List.of(), List.of()));
  }

  @Test
  void aClaimWithoutADomainIsPreparedWithOneCommit() throws IOException {
    var preparer = agent(specs);
    long before = preparer.durable().writes();
    var outcome = preparer.prepare(new PrepareRequest(CLAIM, List.of("gpu-0"), Optional.empty()));
    assertThat(outcome).isInstanceOf(PrepareOutcome.Prepared.class);
    assertThat(preparer.durable().writes() - before).isEqualTo(1);
    file.crash(); // what was reported Prepared is durable
    assertThat(agent(specs).durable().ledger().snapshot().holding()).hasSize(1);
  }

  @Test
  void aClaimInADomainIsDurablyStartedBeforeItsEffects() throws IOException {
    var preparer = agent(specs);
    long before = preparer.durable().writes();
    // The domain's daemon stays starting, so the prepare waits after joining: the started entry,
    // which wants the membership and the helper, is durable by then.
    helpers.holdStarting("domain-1", true);
    var outcome =
        preparer.prepare(new PrepareRequest(CLAIM, List.of("gpu-0"), Optional.of("domain-1")));
    assertThat(outcome).isInstanceOf(PrepareOutcome.Waiting.class);
    assertThat(preparer.durable().writes() - before).isEqualTo(1);
    file.crash();
    assertThat(agent(specs).wantedDomains()).containsExactly("domain-1");
  }

  @Test
  void aCrashAfterTheSpecBeforeTheCommitLeavesAnOrphanThatStartUpRemoves() throws IOException {
    var crashing =
        new ClaimSpecs() {
          @Override
          public List<String> write(
              ClaimRef claim,
              List<DiscoveredGpu> gpus,
              List<DiscoveredChannel> channels,
              List<VerifiedNode> controlNodes)
              throws IOException {
            specs.write(claim, gpus, channels, controlNodes);
            throw new IllegalStateException("the agent dies here");
          }

          @Override
          public void remove(String uid) throws IOException {
            specs.remove(uid);
          }

          @Override
          public Set<String> claimUids() {
            return specs.claimUids();
          }
        };
    var request = new PrepareRequest(CLAIM, List.of("gpu-0"), Optional.empty());
    assertThatThrownBy(() -> agent(crashing).prepare(request)).hasMessageContaining("dies here");
    file.crash();
    assertThat(specs.claimUids()).containsExactly("uid-a");

    var restarted = agent(specs);
    assertThat(restarted.durable().ledger().snapshot().holding()).isEmpty();
    assertThat(restarted.removeOrphanSpecs()).containsExactly("uid-a");
    assertThat(specs.claimUids()).isEmpty();
    assertThat(restarted.prepare(request)).isInstanceOf(PrepareOutcome.Prepared.class);
    assertThat(specs.claimUids()).containsExactly("uid-a");
  }
}
