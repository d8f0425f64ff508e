package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.mps.MpsShares;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * MPS-shared GPUs in the whole-cluster simulation ({@code --share 1}): jobs on shares of gpu-2 and
 * gpu-3 of the sharing node beside the rest, an operator switching gpu-3 between MPS and whole, and
 * MPS daemons killed under their clients, with every other fault. The real system holds every
 * promise, with shares of both GPUs and gpu-3 whole handed out over the runs. Two naive variants
 * are caught: an allocator blind to the shares held (on a store as blind), whose shares pass the
 * GPU's compute, by I1; and an agent that starts a GPU's daemon afresh at each prepare, stopping it
 * under the GPU's other clients, by M1.
 */
class MpsSimulationTest {
  private static final int BOUND = 20;
  private static final String NODE = "node-4";

  @Test
  void sharesComeAndGoUnderFaultsWithEveryPromiseKept() {
    Campaign.quiet();
    Set<String> seen = new HashSet<>();
    boolean killed = false;
    for (long seed = 1;
        seed <= BOUND
            && !(killed && seen.containsAll(Set.of("gpu-2-mps", "gpu-3-mps", "gpu-3", "full")));
        seed++) {
      var run = new SeedRun(seed, SeedRun.STEPS, Variant.REAL, line -> true, 0, 1);
      run.world().store().onCommit((revision, changes) -> seenAllocations(run, seen));
      var outcome = run.run();
      assertThat(outcome).as(outcomeText(outcome)).isInstanceOf(SeedRun.Outcome.Passed.class);
      killed |=
          run.world().node(NODE).host.mpsDaemons().log().stream()
              .anyMatch(l -> l.startsWith("died "));
    }
    assertThat(seen)
        .as(
            "claims got shares of both MPS GPUs, gpu-3 whole between its MPS spells, and a GPU's"
                + " compute all taken at once")
        .contains("gpu-2-mps", "gpu-3-mps", "gpu-3", "full");
    assertThat(killed).as("an MPS daemon died under its clients").isTrue();
  }

  private static void seenAllocations(SeedRun run, Set<String> seen) {
    var compute = new java.util.HashMap<String, Integer>();
    for (ResourceClaim c : run.world().view().claims()) {
      c.status()
          .allocation()
          .filter(a -> a.node().equals(NODE))
          .ifPresent(
              a ->
                  a.devices()
                      .forEach(
                          d -> {
                            var share = MpsShares.parse(d.device());
                            share.ifPresent(
                                s -> compute.merge(s.gpu(), s.computePercent(), Integer::sum));
                            seen.add(share.map(s -> s.gpu() + "-mps").orElse(d.device()));
                          }));
    }
    if (compute.values().stream().anyMatch(v -> v >= 80)) {
      seen.add("full");
    }
  }

  @Test
  void sharesPastTheGpuFromAnAllocatorBlindToThemAreCaughtByI1() {
    Campaign.quiet();
    var naive = Variant.allocatorView(ShareBlindApi::new).withoutSharedCounters();
    for (long seed = 1; seed <= BOUND; seed++) {
      if (run(seed, naive, "I1 store") instanceof SeedRun.Outcome.Violated v) {
        System.out.println(
            "shares past their GPU caught by I1 at seed " + seed + "\n" + Campaign.describe(v));
        assertThat(v.violations().getFirst())
            .containsPattern("gpu-[23]-mps/(compute-percent|memory-gib|clients)");
        return;
      }
    }
    throw new AssertionError("shares past their GPU went unnoticed for " + BOUND + " seeds");
  }

  @Test
  void aDaemonStartedAfreshAtEachPrepareIsCaughtByM1() {
    Campaign.quiet();
    var naive = Variant.host(DaemonPerPrepareHost::new);
    for (long seed = 1; seed <= BOUND; seed++) {
      if (run(seed, naive, "M1") instanceof SeedRun.Outcome.Violated v) {
        System.out.println(
            "an MPS daemon restarted under its clients caught by M1 at seed "
                + seed
                + "\n"
                + Campaign.describe(v));
        assertThat(v.violations().getFirst()).contains("was stopped while pid");
        return;
      }
    }
    throw new AssertionError("an MPS daemon restarted under its clients went unnoticed");
  }

  private static SeedRun.Outcome run(long seed, Variant variant, String promise) {
    return new SeedRun(seed, SeedRun.STEPS, variant, line -> line.startsWith(promise), 0, 1).run();
  }

  private static String outcomeText(SeedRun.Outcome o) {
    return o instanceof SeedRun.Outcome.Violated v ? Campaign.describe(v) : "passed";
  }
}
