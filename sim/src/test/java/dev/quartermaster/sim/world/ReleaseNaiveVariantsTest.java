package dev.quartermaster.sim.world;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The controllers of before issue 44 in the whole-cluster simulation — the real control plane (two
 * replicas, fail-over and all) reaching the cluster through a view that drops the writes the fixes
 * added — each caught, by its own promise alone, on a seed the real system passes:
 *
 * <ul>
 *   <li>a finished task keeping its claims ({@link KeepsFinishedClaims}) by HELD: the seed's batch
 *       job ends and its devices stay held while its quota went back;
 *   <li>a fence leaving the dead node's agent finalizer on its claims ({@link
 *       FenceLeavesFinalizers}) by FENCE: the node that dies for good and is fenced at once keeps
 *       its claims, and their tasks' replacements wait for its agent.
 * </ul>
 */
class ReleaseNaiveVariantsTest {
  private static final int BOUND = 20;

  @Test
  void finishedTasksThatKeepTheirClaimsAreCaughtByHeld() {
    assertCaught("finished tasks keep their claims", KeepsFinishedClaims::new, "HELD");
  }

  @Test
  void aFenceThatLeavesTheAgentsFinalizerIsCaughtByFence() {
    assertCaught("the fence leaves the agent's finalizer", FenceLeavesFinalizers::new, "FENCE");
  }

  private static void assertCaught(
      String name,
      java.util.function.UnaryOperator<dev.quartermaster.api.client.ApiClient> view,
      String promise) {
    Campaign.quiet();
    int seed = GangNaiveVariantsTest.firstCaught(Variant.controlView(view), promise, BOUND);
    System.out.println("naive variant '" + name + "' caught by " + promise + " at seed " + seed);
    assertTrue(seed > 0, name + " went unnoticed by " + promise + " for " + BOUND + " seeds");
  }
}
