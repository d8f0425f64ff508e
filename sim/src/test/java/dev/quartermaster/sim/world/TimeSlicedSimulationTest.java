package dev.quartermaster.sim.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.device.timeslice.TimeSlices;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Time-sliced GPUs in the whole-cluster simulation ({@code --share 1}): jobs on replicas beside the
 * rest, and an operator switching {@code gpu-1} of the sharing node between time-sliced and whole,
 * under every fault. The real system holds every promise, with replicas and the whole GPU both
 * handed out over the run; a naive agent that offers a shared GPU whole beside its replicas (on a
 * store blind to parts, as its own store would be) is caught by I1.
 */
class TimeSlicedSimulationTest {
  private static final int BOUND = 20;
  private static final String I1 = "I1 store";
  private static final String NODE = "node-4";

  @Test
  void replicasAndWholeGpusComeAndGoUnderFaultsWithEveryPromiseKept() {
    Campaign.quiet();
    Set<String> seen = new HashSet<>();
    // Seeds until one run or another has shown each form handed out (at most BOUND), every run
    // passing.
    for (long seed = 1;
        seed <= BOUND && !seen.containsAll(Set.of("gpu-0-ts", "gpu-1-ts", "gpu-1"));
        seed++) {
      var run = new SeedRun(seed, SeedRun.STEPS, Variant.REAL, line -> true, 0, 1);
      // After the world's own view of the store: the claims as committed, at every commit.
      run.world().store().onCommit((revision, changes) -> seenAllocations(run, seen));
      var outcome = run.run();
      assertThat(outcome).as(outcomeText(outcome)).isInstanceOf(SeedRun.Outcome.Passed.class);
    }
    assertThat(seen)
        .as("claims got replicas of both GPUs, and gpu-1 whole between its time-sliced spells")
        .contains("gpu-0-ts", "gpu-1-ts", "gpu-1");
  }

  private static void seenAllocations(SeedRun run, Set<String> seen) {
    for (ResourceClaim c : run.world().view().claims()) {
      c.status()
          .allocation()
          .filter(a -> a.node().equals(NODE))
          .ifPresent(
              a ->
                  a.devices()
                      .forEach(
                          d ->
                              seen.add(
                                  TimeSlices.parse(d.device())
                                      .map(r -> r.gpu() + "-ts")
                                      .orElse(d.device()))));
    }
  }

  @Test
  void aGpuOfferedWholeBesideItsReplicasIsCaughtByI1() {
    Campaign.quiet();
    var naive = Variant.agentView(WholeBesideReplicas::new).withoutSharedCounters();
    for (long seed = 1; seed <= BOUND; seed++) {
      if (run(seed, naive, I1) instanceof SeedRun.Outcome.Violated v
          && v.violations().stream().allMatch(l -> l.startsWith(I1))) {
        System.out.println(
            "a GPU offered whole beside its replicas caught by I1 at seed "
                + seed
                + "\n"
                + Campaign.describe(v));
        assertThat(v.violations().getFirst()).contains("are one GPU (a part and its whole)");
        return;
      }
    }
    throw new AssertionError("a GPU offered whole beside its replicas went unnoticed for " + BOUND);
  }

  private static SeedRun.Outcome run(long seed, Variant variant, String promise) {
    return new SeedRun(seed, SeedRun.STEPS, variant, line -> line.startsWith(promise), 0, 1).run();
  }

  private static String outcomeText(SeedRun.Outcome o) {
    return o instanceof SeedRun.Outcome.Violated v ? Campaign.describe(v) : "passed";
  }
}
