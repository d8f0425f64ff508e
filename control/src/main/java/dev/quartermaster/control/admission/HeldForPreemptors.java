package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.Counts;
import dev.quartermaster.api.queue.QuotaTally;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a nominated preemptor waits for is held for it: its demand, less what its victims still
 * stopping use (they count already). Without this, a victim released first goes to whoever is next
 * (itself, even), and the preemptor chooses again, and again.
 *
 * @param stoppingFor preemptor uid → what its victims still stopping use
 * @param withHeld the cohort's figures with what is held counted as used
 */
record HeldForPreemptors(Map<String, Map<String, Long>> stoppingFor, QuotaTally withHeld) {

  /** What {@code next}'s nominations hold, in one pass over its entries. */
  static HeldForPreemptors of(CohortSnapshot s, NextLedger next) {
    var stoppingFor = new HashMap<String, Map<String, Long>>();
    for (var a : next.kept.values()) {
      a.eviction()
          .ifPresent(
              e -> {
                var stopping = stoppingFor.computeIfAbsent(e.byUid(), u -> new HashMap<>());
                a.usage().forEach((c, k) -> stopping.merge(c, (long) k, Counts::sum));
              });
    }
    var withHeld = next.quota.copy();
    next.nominated.forEach(
        (name, n) -> {
          var w = s.byName().get(name);
          var stopping = stoppingFor.get(n.uid());
          if (w == null || stopping == null) {
            return; // nothing to wait for: it is taken first when it fits, and holds nothing
          }
          var reserve = new TreeMap<String, Integer>();
          s.demand(w.spec())
              .forEach(
                  (c, k) -> {
                    long left = k - stopping.getOrDefault(c, 0L);
                    if (left > 0) {
                      reserve.put(c, (int) left); // at most k, an int
                    }
                  });
          withHeld.add(n.queue(), reserve);
        });
    return new HeldForPreemptors(stoppingFor, withHeld);
  }
}
