package dev.quartermaster.api.validation;

import dev.quartermaster.api.queue.PriorityClassSpec;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaLedgerSpec;
import java.util.Map;

/** Rules for queues, priority classes and quota ledgers. */
final class QueueRules {
  static final int MAX_WEIGHT = 1_000;
  static final int MAX_PRIORITY = 1_000_000_000;

  private QueueRules() {}

  static void queue(QueueSpec spec, Violations v) {
    spec.cohort().ifPresent(c -> v.dnsLabel("spec.cohort", c));
    counts("spec.quota", spec.quota(), v);
    counts("spec.borrowingLimit", spec.borrowingLimit(), v);
    counts("spec.lendingLimit", spec.lendingLimit(), v);
    for (var c : spec.borrowingLimit().keySet()) {
      v.check(
          spec.quota().containsKey(c),
          "spec.borrowingLimit." + c,
          "names a device class the quota does not: a class without a quota is not limited, so it"
              + " never borrows");
    }
    for (var c : spec.lendingLimit().keySet()) {
      v.check(
          spec.quota().containsKey(c),
          "spec.lendingLimit." + c,
          "names a device class the quota does not: only a nominal quota is lent");
    }
    v.check(
        spec.weight() >= 1 && spec.weight() <= MAX_WEIGHT,
        "spec.weight",
        "must be from 1 to " + MAX_WEIGHT);
  }

  static void priorityClass(PriorityClassSpec spec, Violations v) {
    // Not Math.abs: the absolute value of Integer.MIN_VALUE is itself, negative, and passed.
    v.check(
        spec.value() >= -MAX_PRIORITY && spec.value() <= MAX_PRIORITY,
        "spec.value",
        "must be from -" + MAX_PRIORITY + " to " + MAX_PRIORITY);
  }

  /** A day: the longest backoff is minutes; a day means a mistake, not a wait. */
  static final long MAX_REQUEUE_DELAY_SECONDS = 86_400;

  static void ledger(QuotaLedgerSpec spec, Violations v) {
    for (int i = 0; i < spec.queues().size(); i++) {
      v.dnsLabel("spec.queues[" + i + "]", spec.queues().get(i));
    }
    // Looked up in a set, and the list named only in a violation: a cohort may list 10,000 queues,
    // and a look-up in the list (and the list written into a message) for every entry made each
    // ledger write quadratic.
    var listed = new java.util.HashSet<>(spec.queues());
    spec.admitted()
        .forEach(
            (w, a) -> {
              v.dnsLabel("spec.admitted." + w, w);
              if (!listed.contains(a.queue())) {
                v.add(
                    "spec.admitted." + w + ".queue", "must be one of spec.queues " + spec.queues());
              }
              counts("spec.admitted." + w + ".usage", a.usage(), v);
              a.eviction()
                  .ifPresent(
                      e -> {
                        if (!e.reason().hasPreemptor()) {
                          v.check(
                              e.by().isEmpty() && e.byUid().isEmpty(),
                              "spec.admitted." + w + ".eviction.by",
                              "must be empty for " + e.reason() + ": no preemptor takes its place");
                          return;
                        }
                        v.dnsLabel("spec.admitted." + w + ".eviction.by", e.by());
                        v.check(
                            !e.by().equals(w),
                            "spec.admitted." + w + ".eviction.by",
                            "a workload does not evict itself");
                      });
            });
    spec.requeued()
        .forEach(
            (w, r) -> {
              v.dnsLabel("spec.requeued." + w, w);
              v.check(r.count() >= 1, "spec.requeued." + w + ".count", "must be >= 1");
              v.check(
                  r.delaySeconds() >= 0 && r.delaySeconds() <= MAX_REQUEUE_DELAY_SECONDS,
                  "spec.requeued." + w + ".delaySeconds",
                  "must be from 0 to " + MAX_REQUEUE_DELAY_SECONDS);
            });
    spec.nominated()
        .forEach(
            (w, n) -> {
              v.dnsLabel("spec.nominated." + w, w);
              if (!listed.contains(n.queue())) {
                v.add(
                    "spec.nominated." + w + ".queue",
                    "must be one of spec.queues " + spec.queues());
              }
              v.check(
                  !spec.admitted().containsKey(w),
                  "spec.nominated." + w,
                  "an admitted workload waits for no victims");
            });
  }

  private static void counts(String field, Map<String, Integer> counts, Violations v) {
    counts.forEach(
        (c, n) -> {
          v.dnsSubdomain(field + "." + c, c);
          v.check(n >= 0, field + "." + c, "must be >= 0 (a count of devices)");
        });
  }
}
