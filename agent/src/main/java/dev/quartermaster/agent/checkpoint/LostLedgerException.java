package dev.quartermaster.agent.checkpoint;

import java.io.IOException;
import java.util.List;

/**
 * An agent refused to start: the cluster believes claims are prepared on its node that its ledger
 * does not know (its journal was deleted, say). Starting anyway would hand their devices to other
 * claims while their tasks may still use them; {@code --accept-lost-ledger} says the operator
 * checked.
 */
public final class LostLedgerException extends IOException {
  private final List<String> claims;
  private final List<String> uids;

  /**
   * @param claims each lost claim as {@code name (uid) [cdi devices]}, for people
   * @param uids the same claims' uids, in the same order
   */
  public LostLedgerException(String node, String ledger, List<String> claims, List<String> uids) {
    super(
        "REFUSING TO START: the API server says "
            + claims.size()
            + " claims are prepared on node "
            + node
            + ", but the ledger ("
            + ledger
            + ") does not know them (were its journal and mark deleted?): "
            + String.join("; ", claims)
            + ". Their devices may still be in use by running tasks. Check that they are free,"
            + " then start with --accept-lost-ledger to forget them.");
    this.claims = List.copyOf(claims);
    this.uids = List.copyOf(uids);
  }

  /** The uids of the claims the ledger lost. */
  public List<String> uids() {
    return uids;
  }

  /** The claims the ledger lost, each as {@code name (uid) [cdi devices]}. */
  public List<String> claims() {
    return claims;
  }
}
