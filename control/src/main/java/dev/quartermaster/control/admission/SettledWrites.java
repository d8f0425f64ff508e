package dev.quartermaster.control.admission;

import dev.quartermaster.api.queue.QuotaLedger;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The controller's ledger writes whose events bring no decision: per cohort, the revision of its
 * last write when that write only marked admissions started and nothing asked for a decision while
 * the cache had not reached it. A decision over the ledger such a write left would change nothing
 * (a started mark only ends a start timeout, and the write's own decision timed those already), and
 * that decision of the whole cohort was half of what a mark cost. Any other write's event, or one a
 * trigger waited for, decides again.
 */
final class SettledWrites {
  private final Map<String, Long> revisions = new ConcurrentHashMap<>();

  /** The controller wrote {@code cohort}'s ledger at {@code revision}; {@code settled} as above. */
  void wrote(String cohort, long revision, boolean settled) {
    if (settled) {
      revisions.put(cohort, revision);
    } else {
      revisions.remove(cohort);
    }
  }

  /**
   * A decision found the cache behind the controller's last write and left a trigger for that
   * write's event to bring back: the event must decide.
   */
  void waitedFor(String cohort) {
    revisions.remove(cohort);
  }

  /** Whether {@code ledger}'s event brings a decision (once: a settled write is forgotten). */
  boolean brought(QuotaLedger ledger) {
    return !revisions.remove(ledger.metadata().name(), ledger.metadata().revision());
  }

  /** A new term: every cohort is decided again anyway. */
  void clear() {
    revisions.clear();
  }
}
