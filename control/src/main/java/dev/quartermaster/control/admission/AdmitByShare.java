package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.QueueOrdering;
import dev.quartermaster.api.queue.QuotaTally;
import dev.quartermaster.api.workload.Workload;
import dev.quartermaster.control.admission.policy.AdmissionOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;

/**
 * A decision's third step: every pending workload that fits is admitted, of every queue, the queue
 * whose turn it is by the {@link AdmissionOrder} taken from first (only the queue that admitted
 * moves). A workload that does not fit stops its queue ({@code StrictFIFO}) or is passed over
 * ({@code BestEffortFIFO}: those behind it may go, if they do not delay its start, {@link
 * QueueBackfill}). A grown workload is admitted again whole at its new size, or keeps its old
 * admission until that fits. Mutable, one decision's only.
 */
final class AdmitByShare {
  /**
   * How many of a queue's workloads that do not fit may try to preempt in one decision, in order
   * (the first that can does; a StrictFIFO queue tries its head only).
   */
  static final int PREEMPTION_TRIES = 8;

  private final CohortSnapshot s;
  private final NextLedger next;
  private final Map<String, ArrayDeque<Workload>> pending;

  /** The cohort's figures with what preemptors wait for held ({@link HeldForPreemptors}). */
  private final QuotaTally withHeld;

  /** Per queue, the first workloads that did not fit, in order: each may preempt. */
  private final TreeMap<String, List<Workload>> blocked = new TreeMap<>();

  /** Per BestEffortFIFO queue whose first workload did not fit: that head's start. */
  private final Map<String, QueueBackfill.Start> heads = new HashMap<>();

  private final ToDoubleFunction<String> rank;

  AdmitByShare(
      CohortSnapshot s,
      NextLedger next,
      Map<String, ArrayDeque<Workload>> pending,
      QuotaTally withHeld,
      AdmissionOrder order) {
    this.s = s;
    this.next = next;
    this.pending = pending;
    this.withHeld = withHeld;
    this.rank = order.across(s.specs(), next.quota);
  }

  /**
   * Takes every pending workload in turn; returns, per queue, the first that did not fit and did
   * not wait for a head (a StrictFIFO queue's head only), which may preempt.
   */
  TreeMap<String, List<Workload>> run() {
    var shares = new HashMap<String, Double>();
    var turn =
        new TreeSet<String>(
            Comparator.<String>comparingDouble(shares::get)
                .thenComparing(Comparator.naturalOrder()));
    for (var q : pending.keySet()) {
      shares.put(q, rank.applyAsDouble(q));
      turn.add(q);
    }
    next.quota.visited(pending.size());
    while (!turn.isEmpty()) {
      var queue = turn.pollFirst();
      next.quota.visited(1);
      take(queue, pending.get(queue).poll());
      if (pending.get(queue).isEmpty()) {
        pending.remove(queue);
      } else {
        shares.put(queue, rank.applyAsDouble(queue));
        turn.add(queue);
      }
    }
    return blocked;
  }

  /** {@code head}, the first of {@code queue}'s: admitted if it fits, else blocked. */
  private void take(String queue, Workload head) {
    var name = head.metadata().name();
    var before = next.kept.get(name);
    var demand = s.demand(head.spec());
    // A workload admitted before and grown is judged without its old admission.
    if (before != null) {
      next.quota.remove(before.queue(), before.usage());
      withHeld.remove(before.queue(), before.usage());
    }
    boolean passes =
        !heads.containsKey(queue) || QueueBackfill.mayPass(heads.get(queue), head.spec(), s.now());
    // One that would delay the head of its queue (passes false) waits, and preempts nobody.
    if (passes && withHeld.fits(queue, demand)) {
      next.admitByShare(s, head, demand);
      withHeld.add(queue, demand);
      return;
    }
    if (before != null) {
      next.quota.add(before.queue(), before.usage());
      withHeld.add(before.queue(), before.usage());
    }
    if (passes) {
      blocked(queue, head, demand);
    }
  }

  /** {@code head} does not fit: it may preempt, and stops its queue or reserves its start. */
  private void blocked(String queue, Workload head, Map<String, Integer> demand) {
    var tries = blocked.computeIfAbsent(queue, q -> new ArrayList<>());
    if (tries.size() < PREEMPTION_TRIES) {
      tries.add(head);
    }
    if (s.specs().get(queue).ordering() == QueueOrdering.StrictFIFO) {
      pending.get(queue).clear();
    } else if (!heads.containsKey(queue) && !pending.get(queue).isEmpty()) {
      heads.put(
          queue,
          QueueBackfill.start(
              withHeld,
              next.kept,
              s.byName(),
              head.metadata().name(),
              less -> less.fits(queue, demand),
              s.now()));
    }
  }
}
