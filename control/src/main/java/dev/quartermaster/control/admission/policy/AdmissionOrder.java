package dev.quartermaster.control.admission.policy;

import dev.quartermaster.api.queue.QueueSpec;
import dev.quartermaster.api.queue.QuotaTally;
import dev.quartermaster.api.workload.Workload;
import java.util.Comparator;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Which pending workload an admission decision considers first: the ordering part of the policy
 * seam, beside {@link VictimChoice} (and the allocator's fit). As a queue-order and a job-order
 * plugin of a batch scheduler's session, it answers two questions: in what order a queue's
 * workloads are taken, and whose turn it is across the cohort's queues.
 */
public interface AdmissionOrder {
  /**
   * A queue's pending workloads, the first taken first, given the priority classes' values (class
   * name → value).
   */
  Comparator<Workload> within(Map<String, Integer> priorities);

  /**
   * Each queue's rank for the next turn, the lowest first (ties by name), over {@code quota} as the
   * decision changes it: read again after each admission of that queue. {@code specs}: the cohort's
   * queues.
   */
  ToDoubleFunction<String> across(Map<String, QueueSpec> specs, QuotaTally quota);
}
