package dev.quartermaster.sim.world;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quartermaster.agent.checkpoint.LostLedger;
import org.junit.jupiter.api.Test;

/**
 * Issue 43 item 17 in the whole cluster: a killed agent's journal and mark are deleted with it. The
 * real agent refuses to start until an operator accepts the loss; a naive agent that starts from
 * what is left ({@link LostLedger#ACCEPT} without being told) has forgotten claims it acknowledged
 * as prepared, which I6 catches on a seed the real system passes.
 */
class LostLedgerTest {
  private static final int BOUND = 200;

  @Test
  void anAgentStartingFromALostLedgerIsCaughtByI6() {
    Campaign.quiet();
    int seed =
        GangNaiveVariantsTest.firstCaught(Variant.lostLedger(LostLedger.ACCEPT), "I6", BOUND);
    System.out.println("naive variant 'start from a lost ledger' caught by I6 at seed " + seed);
    assertTrue(
        seed > 0,
        "an agent starting from a lost ledger went unnoticed by I6 for " + BOUND + " seeds");
  }
}
