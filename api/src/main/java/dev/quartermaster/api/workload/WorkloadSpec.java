package dev.quartermaster.api.workload;

import java.util.List;
import java.util.Optional;

/**
 * @param groups the worker groups; each is kept at its replicas
 * @param computeDomain the compute domain every worker's claims join, if any
 */
public record WorkloadSpec(List<WorkerGroup> groups, Optional<String> computeDomain) {
  public static final WorkloadSpec EMPTY = new WorkloadSpec(List.of(), Optional.empty());

  public WorkloadSpec {
    groups = groups == null ? List.of() : List.copyOf(groups);
    computeDomain = computeDomain == null ? Optional.empty() : computeDomain;
  }
}
