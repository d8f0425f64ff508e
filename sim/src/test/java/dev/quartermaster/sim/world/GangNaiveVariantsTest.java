package dev.quartermaster.sim.world;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quartermaster.control.workload.GangRecovery;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The two naive gang schedulers of issue 32 in the whole-cluster simulation — the real control
 * plane (two replicas, fail-over and all) with only its allocator's view of the cluster changed, or
 * a helper beside it — each caught on a seed the real system passes:
 *
 * <ul>
 *   <li>a placed gang left partly placed after a drain or a lost node (issue 44, {@link
 *       #leftPartlyPlaced}) by G3 alone;
 *   <li>per-task placement ({@link GangBlindApi}: the allocator before gangs) by G1, and by G2 on
 *       its own (judged by G2 alone);
 *   <li>reserve-and-wait (that allocator plus {@link PartialGangTimeout}, which takes a partial
 *       gang back after a timeout) by G1, and its deadlock by L2 on its own: the run judged by L2
 *       alone, since G1 stops it at the first partial hold.
 * </ul>
 *
 * Each test prints the seed that caught its variant. G1 sees both at once (seed 1). L2 needs more:
 * gangs that together do not fit once the faults stop, each holding a part for longer than its
 * bound (first within 50 seeds).
 */
class GangNaiveVariantsTest {
  private static final int BOUND = 100;

  static Variant perTask() {
    return Variant.allocatorView(GangBlindApi::new);
  }

  /**
   * Its own timeout takes partial gangs back, not the workload controller's (issue 44), which would
   * stop a partly placed gang after 30 s and so break the deadlock it is made to show.
   */
  static Variant reserveAndWait() {
    return perTask()
        .withAlongside(PartialGangTimeout::start)
        .withPlaneOptions(o -> o.withGangRecovery(NAIVE_RECOVERY));
  }

  /** The recovery before issue 44: none. */
  private static final GangRecovery NAIVE_RECOVERY =
      new GangRecovery(false, java.util.Optional.empty());

  /**
   * Before issue 44: a placed gang that lost a member (a drain, a node) is left as it is, holding
   * devices for the others while the replacement waits for room beside them, for ever; a {@code
   * RestartGang} gang's member deleted from outside is replaced alone.
   */
  static Variant leftPartlyPlaced() {
    return Variant.planeOptions(o -> o.withGangRecovery(NAIVE_RECOVERY));
  }

  @Test
  void perTaskPlacementIsCaughtByG1() {
    assertCaught("per-task placement", perTask(), "G1");
  }

  /** Blind to gangs, it is blind to their topology too: a required clique is not kept. */
  @Test
  void perTaskPlacementIsCaughtByG2Alone() {
    assertCaught("per-task placement", perTask(), "G2");
  }

  @Test
  void reserveAndWaitIsCaughtByG1() {
    assertCaught("reserve-and-wait", reserveAndWait(), "G1");
  }

  @Test
  void reserveAndWaitDeadlockIsCaughtByL2Alone() {
    assertCaught("reserve-and-wait", reserveAndWait(), "L2");
  }

  @Test
  void aGangLeftPartlyPlacedIsCaughtByG3Alone() {
    assertCaught("partly placed left as it is", leftPartlyPlaced(), "G3");
  }

  private static void assertCaught(String name, Variant variant, String promise) {
    Campaign.quiet();
    int seed = firstCaught(variant, promise, BOUND);
    System.out.println("naive variant '" + name + "' caught by " + promise + " at seed " + seed);
    assertTrue(seed > 0, name + " went unnoticed by " + promise + " for " + BOUND + " seeds");
  }

  /**
   * The first seed (1-based) on which {@code variant}, judged by {@code promise} alone, violates it
   * and the real system passes every promise; -1 within {@code bound} seeds.
   */
  static int firstCaught(Variant variant, String promise, int bound) {
    Predicate<String> judged = line -> line.startsWith(promise);
    for (int seed = 1; seed <= bound; seed++) {
      if (new SeedRun(seed, SeedRun.STEPS, variant, judged).run()
              instanceof SeedRun.Outcome.Violated v
          && v.violations().stream().allMatch(judged)
          && SeedRun.run(seed, SeedRun.STEPS) instanceof SeedRun.Outcome.Passed) {
        System.out.println(Campaign.describe(v));
        return seed;
      }
    }
    return -1;
  }
}
