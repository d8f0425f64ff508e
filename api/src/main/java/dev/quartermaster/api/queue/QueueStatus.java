package dev.quartermaster.api.queue;

import java.util.Map;

/**
 * What the admission controller last saw of a queue (the cohort's {@link QuotaLedger} is the truth;
 * this is its summary for people).
 *
 * @param pending workloads of this queue not admitted yet
 * @param admitted workloads of this queue admitted and not finished
 * @param used class → devices the admitted workloads use
 * @param borrowed class → of {@code used}, devices above the nominal quota (lent by the cohort)
 * @param lent class → of this queue's unused nominal quota, devices others borrow now
 */
public record QueueStatus(
    int pending,
    int admitted,
    Map<String, Integer> used,
    Map<String, Integer> borrowed,
    Map<String, Integer> lent) {
  public static final QueueStatus EMPTY = new QueueStatus(0, 0, Map.of(), Map.of(), Map.of());

  public QueueStatus {
    used = used == null ? Map.of() : Map.copyOf(used);
    borrowed = borrowed == null ? Map.of() : Map.copyOf(borrowed);
    lent = lent == null ? Map.of() : Map.copyOf(lent);
  }
}
