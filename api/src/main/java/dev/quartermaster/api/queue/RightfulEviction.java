package dev.quartermaster.api.queue;

import java.util.Map;
import java.util.Optional;

/**
 * Whom a preemptor may evict, the one home of the rule, in two strengths.
 *
 * <p>{@link #promised} is Q2, the promise every admitted workload is given and the store enforces
 * whoever writes: it is evicted for another only if that one is of its queue and of strictly higher
 * priority ({@link EvictionReason#Preempted}), or of another queue of the cohort while its own
 * queue runs on borrowed quota of a class it uses ({@link EvictionReason#Reclaimed}); and never by
 * a workload it evicted itself to be admitted ({@link #cycles}).
 *
 * <p>{@link #chosen} is the admission controller's policy, stricter: a reclaim also takes only a
 * class the preemptor needs, and only while the preemptor, admitted, stays within its own nominal
 * quota (a queue takes back what it lent, never more). The store keeps to the promise because that
 * is all it can judge of one write: a nomination carries no demand, and in a write that evicts
 * several, whether the preemptor stays within its quota depends on which of them go first. The
 * simulation checks the promise too, so a controller that broke it is caught even if the store were
 * bypassed.
 */
public final class RightfulEviction {
  private RightfulEviction() {}

  /**
   * Why {@code victim} may be evicted for a preemptor of {@code queue} at {@code priority}, by the
   * promise; empty when it may not. {@code before}: the cohort as it stood before the eviction.
   */
  public static Optional<EvictionReason> promised(
      String queue, int priority, Admitted victim, QuotaFigures before) {
    if (victim.queue().equals(queue)) {
      return victim.priority() < priority
          ? Optional.of(EvictionReason.Preempted)
          : Optional.empty();
    }
    boolean borrows =
        victim.usage().keySet().stream().anyMatch(c -> before.borrowed(victim.queue(), c) > 0);
    return borrows ? Optional.of(EvictionReason.Reclaimed) : Optional.empty();
  }

  /**
   * Why the controller may choose {@code victim} for a preemptor of {@code queue} at {@code
   * priority} that needs {@code demand}; empty when it may not. Whether the victim's queue borrows
   * is read in {@code stored} (what the store holds, as the store judges it); whether the preemptor
   * stays within its nominal quota in {@code decided} (everything the decision admits too).
   */
  public static Optional<EvictionReason> chosen(
      String queue,
      int priority,
      Map<String, Integer> demand,
      Admitted victim,
      QuotaFigures stored,
      QuotaFigures decided) {
    if (victim.queue().equals(queue)) {
      return promised(queue, priority, victim, stored);
    }
    boolean borrowsWhatIsWanted =
        demand.entrySet().stream()
            .anyMatch(
                e ->
                    e.getValue() > 0
                        && victim.usage().getOrDefault(e.getKey(), 0) > 0
                        && stored.borrowed(victim.queue(), e.getKey()) > 0);
    return borrowsWhatIsWanted && decided.withinNominal(queue, demand)
        ? Optional.of(EvictionReason.Reclaimed)
        : Optional.empty();
  }

  /**
   * Whether evicting {@code victim} for the preemptor of uid {@code preemptorUid} would be a cycle:
   * the victim was admitted by evicting that preemptor (the anti-cycle rule).
   */
  public static boolean cycles(Admitted victim, String preemptorUid) {
    return victim.preempted().contains(preemptorUid);
  }
}
