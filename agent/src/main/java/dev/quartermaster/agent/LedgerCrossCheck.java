package dev.quartermaster.agent;

import dev.quartermaster.agent.checkpoint.LostLedger;
import dev.quartermaster.agent.checkpoint.LostLedgerException;
import dev.quartermaster.agent.ledger.ClaimState;
import dev.quartermaster.agent.ledger.LedgerState;
import dev.quartermaster.api.claim.PrepareState;
import dev.quartermaster.api.claim.ResourceClaim;
import dev.quartermaster.api.client.ApiClient;
import dev.quartermaster.api.meta.Kinds;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At start, before anything is prepared: the ledger against what the cluster believes of this node.
 * A claim whose {@code status.prepare[<node>]} says Prepared, that is still allocated here and not
 * being deleted, and of which the ledger knows nothing (no entry, not even a tombstone) was
 * acknowledged as prepared and then lost — {@code ledger.journal} and its mark deleted together
 * leave a ledger that cannot tell. Starting from it would give those devices to the next claim
 * while the lost claims' tasks may still run on them, so the agent refuses, naming them, unless the
 * operator accepts the loss.
 *
 * <p>Claims dropped because the node rebooted are not lost (nothing prepared survives a reboot); a
 * claim being deleted, deallocated or moved is only waiting for its unprepare (or for its status to
 * say so, after a tombstone that outlived its report), which needs no ledger entry. When the API
 * server cannot be asked the start fails: a ledger that lost its journal looks like one that never
 * had those claims, so only the cluster can tell, and an agent without a server cannot start anyway
 * (it registers its node next); started again, it asks again.
 */
final class LedgerCrossCheck {
  private static final Logger LOG = LoggerFactory.getLogger(LedgerCrossCheck.class);

  private LedgerCrossCheck() {}

  /** The claims the cluster believes prepared on {@code node} that {@code ledger} does not know. */
  static List<ResourceClaim> lost(
      Collection<ResourceClaim> claims, String node, LedgerState ledger, Set<String> rebooted) {
    return claims.stream()
        .filter(c -> !c.metadata().isDeleting())
        .filter(c -> c.status().allocation().filter(a -> a.node().equals(node)).isPresent())
        .filter(
            c ->
                c.status().prepare().getOrDefault(node, NOT_PREPARED).phase()
                    == PrepareState.Phase.Prepared)
        .filter(c -> !ledger.claims().containsKey(c.metadata().uid()))
        .filter(c -> !rebooted.contains(c.metadata().uid()))
        .toList();
  }

  private static final PrepareState NOT_PREPARED =
      new PrepareState(PrepareState.Phase.Pending, "", List.of(), java.util.Optional.empty());

  /**
   * Refuses ({@link LostLedgerException}) or, with {@link LostLedger#ACCEPT}, warns of what the
   * ledger lost and answers it ({@code name (uid) [cdi devices]}); empty when it lost nothing. An
   * {@link IOException} when the API server does not answer the list of claims.
   */
  static List<String> check(
      ApiClient api,
      String node,
      String ledgerName,
      LedgerState ledger,
      List<ClaimState> droppedByReboot,
      LostLedger policy)
      throws IOException {
    List<ResourceClaim> claims;
    try {
      claims = api.list(Kinds.RESOURCE_CLAIM).items();
    } catch (RuntimeException e) {
      throw new IOException(
          "NOT STARTING: could not compare "
              + ledgerName
              + " with the claims the API server says are prepared on node "
              + node
              + " ("
              + e.getMessage()
              + "); without that a ledger that lost claims (its journal and mark deleted, say)"
              + " cannot be told from one that never had them. Start again when the server"
              + " answers.",
          e);
    }
    var rebooted =
        droppedByReboot.stream().map(s -> s.claim().uid()).collect(Collectors.toUnmodifiableSet());
    var lost = lost(claims, node, ledger, rebooted);
    if (lost.isEmpty()) {
      return List.of();
    }
    var named = new ArrayList<String>();
    for (var c : lost) {
      named.add(
          c.metadata().name()
              + " ("
              + c.metadata().uid()
              + ") "
              + c.status().prepare().get(node).cdiDevices());
    }
    if (policy == LostLedger.REFUSE) {
      throw new LostLedgerException(
          node, ledgerName, named, lost.stream().map(c -> c.metadata().uid()).toList());
    }
    LOG.warn(
        "--accept-lost-ledger: starting node {} from a ledger that forgot {} claims the API server"
            + " says are prepared here: {}. Their devices are free to this agent now; a claim still"
            + " wanted is prepared again.",
        node,
        named.size(),
        String.join("; ", named));
    return List.copyOf(named);
  }
}
