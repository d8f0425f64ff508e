package dev.quartermaster.control.admission;

import java.util.Map;
import java.util.Set;

/**
 * What the controller learned of a cohort's workloads from their tasks and requeue records, for one
 * decision.
 *
 * @param taken workload → group → how many ordinals its live tasks take (the highest live ordinal +
 *     1), for the workloads scaled down below their admission: the admission shrinks only as their
 *     surplus tasks go, so the quota always covers what runs
 * @param finished the workloads whose jobs are over (every task ended for good): their quota is
 *     released, and they are not admitted again unless scaled up
 * @param stopped the evicted workloads none of whose tasks is left: their entries are released
 * @param backingOff the workloads that wait out a backoff after an eviction ({@link Requeues}):
 *     pending, but not taken (nor preempting) until it is over
 */
record WorkloadFacts(
    Map<String, Map<String, Integer>> taken,
    Set<String> finished,
    Set<String> stopped,
    Set<String> backingOff) {
  static final WorkloadFacts NONE = new WorkloadFacts(Map.of(), Set.of(), Set.of(), Set.of());
}
