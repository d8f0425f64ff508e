package dev.quartermaster.store.registry;

import dev.quartermaster.api.error.ApiError.Reason;
import dev.quartermaster.api.error.ApiException;
import dev.quartermaster.api.meta.Kinds;
import dev.quartermaster.api.queue.Queue;
import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaLedger;
import java.util.HashMap;
import java.util.Map;

/**
 * The queues a ledger lists, as stored: a queue is in its own cohort's ledger only (the ledger is
 * named as the cohort, so there is one per cohort), and what a write is judged against is each
 * listed queue as it is now.
 */
final class ListedQueues {
  private ListedQueues() {}

  /** Queue {@code name} as stored, refused unless it exists and is of {@code ledger}'s cohort. */
  static Queue of(ComparedReads reads, QuotaLedger ledger, String name) {
    var cohort = ledger.metadata().name();
    var queue = reads.get(Kinds.QUEUE, name);
    if (queue.isEmpty() || !queue.get().cohort().equals(cohort)) {
      throw new ApiException(
          Reason.Conflict,
          ledger.ref()
              + ": spec.queues: queue "
              + name
              + (queue.isEmpty()
                  ? " does not exist"
                  : " is of cohort " + queue.get().cohort() + ", not " + cohort)
              + "; a ledger lists its own cohort's queues, as they are now");
    }
    return queue.get();
  }

  /** Every queue {@code ledger} lists → its spec, each refused as {@link #of} refuses it. */
  static Map<String, QueueSpec> specs(ComparedReads reads, QuotaLedger ledger) {
    var specs = new HashMap<String, QueueSpec>();
    for (var name : ledger.spec().queues()) {
      specs.put(name, of(reads, ledger, name).spec());
    }
    return specs;
  }
}
