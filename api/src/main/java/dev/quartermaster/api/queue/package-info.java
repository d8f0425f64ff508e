/**
 * Teams share the fleet through queues. A {@link dev.quartermaster.api.queue.Queue} has a nominal
 * quota per device class and belongs to a cohort, in which queues lend what they do not use and
 * borrow what others lend. A workload names its queue and is <em>admitted</em> before any of its
 * tasks exists; what admitted workloads use is written in the cohort's {@link
 * dev.quartermaster.api.queue.QuotaLedger}, one object, so the store judges every admission against
 * the whole cohort in the write's own transaction ({@link dev.quartermaster.api.queue.CohortQuota}
 * is the arithmetic, shared by the store's guard, the admission controller and the simulation).
 */
package dev.quartermaster.api.queue;
