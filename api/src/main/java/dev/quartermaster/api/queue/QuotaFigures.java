package dev.quartermaster.api.queue;

import java.util.Map;

/**
 * A cohort's quota figures as a rule about evictions reads them: the same formulas whether held
 * whole ({@link CohortQuota}, the store's and the simulation's) or kept up to date by a decision
 * ({@link QuotaTally}, the admission controller's).
 */
public sealed interface QuotaFigures permits CohortQuota, QuotaTally {
  /** What {@code queue}'s workloads use of {@code deviceClass} beyond its nominal quota. */
  int borrowed(String queue, String deviceClass);

  /**
   * Whether {@code usage} admitted through {@code queue} too keeps it within its nominal quota of
   * every class it limits.
   */
  boolean withinNominal(String queue, Map<String, Integer> usage);
}
