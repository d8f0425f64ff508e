package dev.quartermaster.agent.mig;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.agent.ledger.ClaimRef;
import dev.quartermaster.agent.ledger.ClaimState;
import dev.quartermaster.agent.ledger.PrepareRequest;
import dev.quartermaster.agent.prepare.PrepareOutcome;
import dev.quartermaster.api.device.mig.MigGeometry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Dynamic MIG instances through the ledger with {@code kill -9} at the worst points: right after an
 * instance is created and before the ledger records the prepare, and right after an unprepare is
 * recorded and before its instance is destroyed. After each restart the node must hold no instance
 * that no holding claim owns (no leak that blocks placement for ever), every instance at a distinct
 * place (never one serving two claims), and every completed slice claim must have its instance.
 */
class MigCrashTest {
  private static final List<String> SLICES =
      MigGeometry.H200_141GB.devices("gpu-0").stream().map(d -> d.name()).toList();

  @Test
  void crashesBetweenCreateAndRecordNeitherLeakNorShare() throws Exception {
    var violations = run(true, 400, 11);
    assertThat(violations).isEmpty();
  }

  @Test
  void aRestartThatDoesNotReconcileLeaksAnInstance() throws Exception {
    // The naive start: trusts the driver's instances to match the ledger after a crash.
    var violations = run(false, 400, 11);
    assertThat(violations).anyMatch(v -> v.contains("held by no claim"));
  }

  @Test
  void anInstanceCreatedBeforeTheCrashIsAdoptedByItsClaim() throws Exception {
    var node = new MigNodeUnderTest(true);
    node.crashAfterCreate = true;
    var claim = new ClaimRef("uid-a", "a");
    var request = new PrepareRequest(claim, List.of(SLICES.getLast()), Optional.empty());
    try {
      node.agent.prepare(request);
    } catch (MigNodeUnderTest.Crash expected) {
      // killed between create and record
    }
    assertThat(node.instances()).hasSize(1);
    var made = node.instances().getFirst();
    node.restart();
    assertThat(node.instances()).containsExactly(made); // adopted, not destroyed and made again
    assertThat(node.agent.prepare(request)).isInstanceOf(PrepareOutcome.Prepared.class);
    assertThat(node.instances()).containsExactly(made);
    assertThat(node.specs.slices().get("uid-a").getFirst().instance()).isEqualTo(made);
  }

  @Test
  void anInstanceStillOpenIsDestroyedOnceItsProcessLetsGo() throws Exception {
    var node = new MigNodeUnderTest(true);
    var claim = new ClaimRef("uid-a", "a");
    node.agent.prepare(new PrepareRequest(claim, List.of(SLICES.getFirst()), Optional.empty()));
    var made = node.instances().getFirst();
    var caps = node.agent.mig().control().capabilityNodes(made);
    node.openNodes.add(caps.getFirst().hostPath());
    var outcome = node.agent.unprepare(claim);
    assertThat(outcome.effectErrors()).anyMatch(e -> e.contains("in use"));
    assertThat(node.instances()).containsExactly(made);
    node.openNodes.clear();
    assertThat(node.agent.syncEffects().ok()).isTrue();
    assertThat(node.instances()).isEmpty();
  }

  @Test
  void aSliceWhoseCapabilityNodeIsMissingWaitsNamingIt() throws Exception {
    var node = new MigNodeUnderTest(true);
    var gi = MigCapabilities.giMinor(0, 1);
    node.missingNodes.add(
        java.nio.file.Path.of("/sim/n/dev/nvidia-caps/" + MigCapabilities.fileName(gi)));
    var outcome =
        node.agent.prepare(
            new PrepareRequest(
                new ClaimRef("uid-a", "a"), List.of(SLICES.getFirst()), Optional.empty()));
    assertThat(outcome).isInstanceOf(PrepareOutcome.Waiting.class);
    assertThat(((PrepareOutcome.Waiting) outcome).reason())
        .contains("capability node")
        .contains(MigCapabilities.fileName(gi));
  }

  /** Random prepares and unprepares with crashes at both points; the violations seen. */
  private static List<String> run(boolean reconcileAtStart, int steps, long seed) throws Exception {
    var random = new Random(seed);
    var node = new MigNodeUnderTest(reconcileAtStart);
    var violations = new ArrayList<String>();
    var live = new TreeMap<String, ClaimRef>();
    for (int step = 0; step < steps; step++) {
      int what = random.nextInt(10);
      try {
        if (what < 5) {
          var claim = new ClaimRef("uid-" + step, "claim-" + step);
          node.crashAfterCreate = random.nextInt(3) == 0;
          var device = SLICES.get(random.nextInt(SLICES.size()));
          live.put(claim.uid(), claim); // a crash leaves it to the kubelet to unprepare
          var outcome =
              node.agent.prepare(new PrepareRequest(claim, List.of(device), Optional.empty()));
          node.crashAfterCreate = false;
          if (!(outcome instanceof PrepareOutcome.Prepared)) {
            live.remove(claim.uid());
            node.agent.unprepare(claim); // its slice is taken: the claim goes elsewhere
          }
        } else if (what < 9 && !live.isEmpty()) {
          var uid = new ArrayList<>(live.keySet()).get(random.nextInt(live.size()));
          node.crashBeforeDestroy = random.nextInt(3) == 0;
          node.agent.unprepare(live.get(uid));
          node.crashBeforeDestroy = false;
          live.remove(uid);
        } else {
          node.restart();
          check(node, violations, step);
        }
      } catch (MigNodeUnderTest.Crash crash) {
        node.restart();
        check(node, violations, step);
      }
    }
    return violations;
  }

  private static void check(MigNodeUnderTest node, List<String> violations, int step) {
    var holding = node.agent.durable().ledger().snapshot().holding();
    var held = new TreeMap<String, String>();
    for (var e : holding) {
      for (var d : e.devices()) {
        if (held.put(d, e.claim().uid()) != null) {
          violations.add("step " + step + ": " + d + " held by two claims");
        }
      }
    }
    var places = new java.util.HashSet<String>();
    for (var i : node.instances()) {
      var name = i.deviceName("gpu-0");
      if (!places.add(name)) {
        violations.add("step " + step + ": two instances at " + name);
      }
      if (!held.containsKey(name)) {
        violations.add("step " + step + ": instance " + i + " held by no claim");
      }
    }
    for (var e : holding) {
      if (e instanceof ClaimState.PrepareCompleted) {
        for (var d : e.devices()) {
          if (!places.contains(d)) {
            violations.add("step " + step + ": prepared " + d + " has no instance");
          }
        }
      }
    }
  }
}
