package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.Admitted;
import dev.quartermaster.api.queue.QueueStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ToIntFunction;

/**
 * A decision's last step: each queue's status from the next ledger — how many wait, how many are
 * admitted, and per class what it uses, borrows and lends — from one pass over the entries and one
 * over the queues: what is lent is laid on the lenders once per class, not once per queue.
 */
final class QueueStatuses {
  private QueueStatuses() {}

  /** Queue → its status, with {@code next} as the cohort's ledger. */
  static Map<String, QueueStatus> of(CohortSnapshot s, NextLedger next) {
    var quota = next.quota;
    var waiting = new HashMap<String, Integer>();
    for (var w : s.workloads()) {
      if (!w.metadata().isDeleting()
          && !s.finished(w.metadata().name())
          && !next.kept.containsKey(w.metadata().name())) {
        waiting.merge(w.spec().queueName(), 1, Integer::sum);
      }
    }
    var entries = new HashMap<String, List<Admitted>>();
    next.kept
        .values()
        .forEach(a -> entries.computeIfAbsent(a.queue(), q -> new ArrayList<>()).add(a));
    var lent = new HashMap<String, Map<String, Integer>>();
    var statuses = new TreeMap<String, QueueStatus>();
    for (var q : s.specs().keySet()) {
      quota.visited(1);
      var here = entries.getOrDefault(q, List.of());
      var classes = new TreeSet<String>(s.specs().get(q).quota().keySet());
      here.forEach(a -> classes.addAll(a.usage().keySet()));
      statuses.put(
          q,
          new QueueStatus(
              waiting.getOrDefault(q, 0),
              here.size(),
              perClass(classes, c -> quota.used(q, c)),
              perClass(classes, c -> quota.borrowed(q, c)),
              perClass(classes, c -> lent.computeIfAbsent(c, quota::lent).getOrDefault(q, 0))));
    }
    return statuses;
  }

  private static Map<String, Integer> perClass(Set<String> classes, ToIntFunction<String> f) {
    var out = new TreeMap<String, Integer>();
    for (var c : classes) {
      int n = f.applyAsInt(c);
      if (n != 0) {
        out.put(c, n);
      }
    }
    return out;
  }
}
